package decoreg

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// checkNames refuses, at SetNames and Save, column names (SetNames) that Load would
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

// checkNames refuses names for m that checkNames refuses, and for a model
// with a schema (FitFrame) features other than the schema's or a target
// that is one of its columns.
func (m *Model) checkNames(features []string, target string) error {
	if err := checkNames(features, target, m.Features()); err != nil {
		return err
	}
	if m.schema != nil && (len(features) != 0 && !slices.Equal(features, m.schema.Names()) || slices.Contains(m.schema.ColumnNames(), target)) {
		return fmt.Errorf("decoreg: the names of SetNames do not fit the model's schema (features %s, target %q)", strings.Join(m.schema.Names(), ","), target)
	}
	return nil
}
