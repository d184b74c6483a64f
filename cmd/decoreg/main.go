// Command decoreg trains and queries decoding-based regression models.
//
// It follows the go command's conventions: `decoreg <command> [flags] [args]`,
// `decoreg help <command>` for details, exit status 0 on success, 1 when a
// command failed, and 2 when it was misused (bad flags, bad input data).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// Command is one subcommand. Each lives in its own file and registers itself
// from init with register.
type Command struct {
	Name      string // the word after "decoreg"
	UsageLine string // e.g. "tokenize --vocab SPEC VALUE..."
	Short     string // one line for the command list
	Long      string // full help text
	Order     int    // position in the command list (ascending)

	// Run executes the command with its arguments (without the command
	// name). Flags are parsed by Run itself through newFlagSet.
	Run func(cmd *Command, args []string) error
}

var commands = map[string]*Command{}

func register(c *Command) {
	if _, dup := commands[c.Name]; dup {
		panic("decoreg: duplicate command " + c.Name)
	}
	commands[c.Name] = c
}

// usageError marks a misuse: bad flags, arguments or input data. It maps to
// exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// asUsage wraps err (if non-nil) as a usage error.
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	var ue usageError
	if errors.As(err, &ue) {
		return err
	}
	return usageError{err}
}

// newFlagSet returns a flag set for cmd that reports errors instead of
// exiting, so that Run can return them as usage errors.
func newFlagSet(cmd *Command) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args with fs and converts errors into usage errors that
// name the command. -h/--help prints the command's help and returns errHelp.
func parseFlags(cmd *Command, fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandHelp(os.Stdout, cmd, fs)
			return errHelp
		}
		return usagef("%s: %v", cmd.Name, err)
	}
	return nil
}

var errHelp = errors.New("help requested")

func sortedCommands() []*Command {
	list := make([]*Command, 0, len(commands))
	for _, c := range commands {
		list = append(list, c)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].Order != list[j].Order {
			return list[i].Order < list[j].Order
		}
		return list[i].Name < list[j].Name
	})
	return list
}

func printMainUsage(w io.Writer) {
	fmt.Fprintf(w, "decoreg: decoding-based regression (Song & Bahri 2025) in Go.\n\n")
	fmt.Fprintf(w, "Usage:\n\n\tdecoreg <command> [arguments]\n\nThe commands are:\n\n")
	for _, c := range sortedCommands() {
		fmt.Fprintf(w, "\t%-10s %s\n", c.Name, c.Short)
	}
	fmt.Fprintf(w, "\nUse \"decoreg help <command>\" for more information about a command.\n")
}

func printCommandHelp(w io.Writer, c *Command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: decoreg %s\n\n%s\n", c.UsageLine, strings.TrimSpace(c.Long))
	if fs != nil {
		var b strings.Builder
		fs.SetOutput(&b)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		if b.Len() > 0 {
			fmt.Fprintf(w, "\nFlags:\n%s", b.String())
		}
	}
}

func init() {
	register(&Command{
		Name:      "help",
		UsageLine: "help [command | bench NAME]",
		Short:     "show help for decoreg or one of its commands",
		Long:      "Help prints the list of commands, or the help of one command.",
		Order:     1000,
		Run: func(_ *Command, args []string) error {
			switch len(args) {
			case 0:
				printMainUsage(os.Stdout)
				return nil
			case 1:
				c, ok := commands[args[0]]
				if !ok {
					return usagef("help: unknown command %q; run 'decoreg help'", args[0])
				}
				printCommandHelp(os.Stdout, c, nil)
				return nil
			case 2:
				// help bench NAME: the bench's own help, with its flags.
				if b, ok := benches[args[1]]; ok && args[0] == "bench" {
					if err := b.Run([]string{"-h"}); err != nil && !errors.Is(err, errHelp) {
						return err
					}
					return nil
				}
				return usagef("help: unknown command %q; run 'decoreg help'", strings.Join(args, " "))
			default:
				return usagef("help: too many arguments")
			}
		},
	})
}

// run is main without os.Exit, for tests: it returns the exit status.
func run(args []string, stderr io.Writer) int {
	if len(args) == 0 {
		printMainUsage(stderr)
		return 2
	}
	name := args[0]
	if name == "-h" || name == "--help" || name == "-help" {
		printMainUsage(os.Stdout)
		return 0
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "decoreg %s: unknown command\nRun 'decoreg help' for usage.\n", name)
		return 2
	}
	err := c.Run(c, args[1:])
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	default:
		msg := err.Error()
		if !strings.HasPrefix(msg, "decoreg") {
			msg = "decoreg " + msg
		}
		fmt.Fprintln(stderr, msg)
		var ue usageError
		if errors.As(err, &ue) {
			return 2
		}
		return 1
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

// stdout is where commands write their results; tests replace it.
var stdout io.Writer = os.Stdout
