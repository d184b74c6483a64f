package vec

import "math"

// Constants of expNeg: ln 2 split so that k*expLn2Hi is exact for the
// exponents that occur, and the Taylor coefficients 1/n!.
const (
	expLog2e  = 1.4426950408889634
	expLn2Hi  = 6.93147180369123816490e-01
	expLn2Lo  = 1.90821492927058770002e-10
	expMinArg = -708 // below: 0
)

var expCoef = [14]float64{
	1.0, 1.0, 0.5, 0.16666666666666666, 0.041666666666666664,
	0.008333333333333333, 0.001388888888888889, 0.0001984126984126984,
	2.48015873015873e-05, 2.7557319223985893e-06, 2.755731922398589e-07,
	2.505210838544172e-08, 2.08767569878681e-09, 1.6059043836821613e-10,
}

// expNeg is exp(x) for the arguments of a max-shifted softmax, x <= 0 or
// NaN, within 2 ulp of math.Exp: 0 below -708 (where exp is below 3.4e-308),
// else 2^k * p(r) with k = round(x log2 e), r = x - k ln 2 (two fused
// multiply-adds) and p the degree-13 Taylor polynomial (Horner, fused).
// The vector kernel (ExpNegInPlace) computes the same bits.
func expNeg(x float64) float64 {
	if x < expMinArg {
		return 0
	}
	k := math.RoundToEven(x * expLog2e)
	r := math.FMA(-k, expLn2Hi, x)
	r = math.FMA(-k, expLn2Lo, r)
	p := expCoef[13]
	for i := 12; i >= 0; i-- {
		p = math.FMA(p, r, expCoef[i])
	}
	return p * math.Float64frombits(uint64(int64(k)+1023)<<52)
}

// ExpNegInPlace sets x[i] = expNeg(x[i]): exp for softmax arguments
// (x <= 0 or NaN), within 2 ulp of math.Exp and 0 below -708, several
// times faster in the vector kernel.
func ExpNegInPlace(x []float64) {
	n := expVec(x)
	if n == len(x) {
		return
	}
	if n > 0 || len(x) < 4 { // the vector kernel takes the tail padded
		var buf [4]float64
		k := copy(buf[:], x[n:])
		if expVec(buf[:]) == 4 {
			copy(x[n:], buf[:k])
			return
		}
	}
	for i, v := range x[n:] {
		x[n+i] = expNeg(v)
	}
}
