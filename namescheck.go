package decoreg

import (
	"fmt"
	"unicode/utf8"
)

// checkNames refuses, at Save, column names (SetNames) that Load would
// refuse or that the file would not keep as they are: a feature count
// other than the model's, a name given twice, the target among the
// features, or a name that is not valid UTF-8 (JSON would replace its bad
// bytes with U+FFFD). No names at all is fine.
func checkNames(features []string, target string, nfeat int) error {
	if len(features) != 0 && len(features) != nfeat {
		return fmt.Errorf("decoreg: SetNames gave %d feature names for the model's %d features", len(features), nfeat)
	}
	seen := make(map[string]int, len(features))
	for j, name := range features {
		if !utf8.ValidString(name) {
			return fmt.Errorf("decoreg: feature name %d (%q) is not valid UTF-8", j, name)
		}
		if k, dup := seen[name]; dup {
			return fmt.Errorf("decoreg: features %d and %d have the same name %q", k, j, name)
		}
		seen[name] = j
	}
	if !utf8.ValidString(target) {
		return fmt.Errorf("decoreg: the target name %q is not valid UTF-8", target)
	}
	if k, dup := seen[target]; dup && target != "" {
		return fmt.Errorf("decoreg: the target name %q is also feature %d", target, k)
	}
	return nil
}
