import csv,gzip,json,os,random,subprocess,sys
"""Per-depth temperatures on a 100-epoch decoder against early stopping (README, section 5).
Usage: DECOREG=<binary built with depth-temperature.patch> WORK=<scratch dir> python3 depth-temperature-probe.py DATASET SPLIT EPOCHS
(scipy needed: Debian's python3-scipy). Prints one JSON line."""
D=os.environ.get("DATA","../shared/data/uci"); B=os.environ["DECOREG"]; W=os.environ.get("WORK","/tmp/depth-probe")
T5="--encoder plr --input-transform robust --dec-layers 3 --dec-width 128 --dec-heads 4 --enc-layers 2 --enc-width 512 --lr 5e-4".split()
GRID=[0.5,0.7,1,1.4,2,3,5,8,12,20,40]
def run(args,env=None):
    e=dict(os.environ); e.pop("HACK_DEPTH_T",None)
    if env: e.update(env)
    return subprocess.run(args,capture_output=True,text=True,env=e,check=True).stdout
def ev(model,data,T=None):
    # tau and coverage on data's targets; the NLL on data's targets clipped
    # into the training range (data_clip.csv), as eval's NLL clips them.
    from scipy.stats import kendalltau
    env={"HACK_DEPTH_T":",".join(str(t) for t in T)} if T else None
    ys=[float(r[-1]) for r in list(csv.reader(open(data)))[1:]]
    rs=list(csv.DictReader(run([B,"predict","--model",model,"--data",data,"--out","-"],env).splitlines()))
    mean=[float(r["mean"]) for r in rs]
    cov=sum(float(r["q05"])<=y<=float(r["q95"]) for r,y in zip(rs,ys))/len(ys)
    rc=list(csv.DictReader(run([B,"predict","--model",model,"--data",data[:-4]+"_clip.csv","--out","-"],env).splitlines()))
    lp=[float(r["logpdf"]) for r in rc]
    return kendalltau(mean,ys).statistic, -sum(lp)/len(lp), cov
def main(ds,k,E):
    rows=list(csv.reader(gzip.open(f"{D}/{ds}/data.csv.gz","rt"))); hdr,body=rows[0],rows[1:]
    m=list(csv.reader(gzip.open(f"{D}/{ds}/test_mask.csv.gz","rt"))); c=m[0].index(f"split{k}")
    test=[r for r,mm in zip(body,m[1:]) if mm[c]=="1"]; train=[r for r,mm in zip(body,m[1:]) if mm[c]!="1"]
    random.Random(k).shuffle(train); nc=len(train)//10
    p=f"{W}/{ds}{k}"
    for name,rs in (("tr",train[nc:]),("cal",train[:nc]),("te",test),("all",train)):
        with open(f"{p}_{name}.csv","w",newline="") as f: w=csv.writer(f); w.writerow(hdr); w.writerows(rs)
    ty=[float(r[-1]) for r in train[nc:]]; lo,hi=min(ty),max(ty); e=1e-9*(hi-lo)
    for name,rs in (("cal",train[:nc]),("te",test)):
        with open(f"{p}_{name}_clip.csv","w",newline="") as f:
            w=csv.writer(f); w.writerow(hdr)
            w.writerows(r[:-1]+[repr(min(max(float(r[-1]),lo+e),hi-e))] for r in rs)
    run([B,"train","--data",f"{p}_all.csv","--head","decoder",*T5,"--seed","0","--threads","2","--quiet","--out",f"{p}_es.drm"])
    run([B,"train","--data",f"{p}_tr.csv","--head","decoder",*T5,"--seed","0","--threads","2","--quiet","--val-frac","0","--epochs",str(E),"--out",f"{p}_e.drm"])
    out={"dataset":ds,"split":k,"epochs":E,"cal_rows":nc}
    out["es"]=ev(f"{p}_es.drm",f"{p}_te.csv")
    out["e_T1"]=ev(f"{p}_e.drm",f"{p}_te.csv")
    K=6
    best=min(GRID,key=lambda t: ev(f"{p}_e.drm",f"{p}_cal.csv",[t]*K)[1])
    out["global_T"]=best; out["e_global"]=ev(f"{p}_e.drm",f"{p}_te.csv",[best]*K)
    T=[best]*K; cur=ev(f"{p}_e.drm",f"{p}_cal.csv",T)[1]
    for sweep in range(2):
        for d in range(K):
            for t in GRID:
                T2=T[:]; T2[d]=t; v=ev(f"{p}_e.drm",f"{p}_cal.csv",T2)[1]
                if v<cur-1e-12: cur,T=v,T2
    out["depth_T"]=T; out["cal_nll_depth"]=cur; out["e_depth"]=ev(f"{p}_e.drm",f"{p}_te.csv",T)
    print(json.dumps(out),flush=True)
if __name__=="__main__":
    os.makedirs(W,exist_ok=True)
    main(sys.argv[1],int(sys.argv[2]),int(sys.argv[3]))
