// This file holds the last step of Reconcile's registry pass: the data
// backends' store checks, before the registry keeps anything, the data
// templates of the realms the pass brought (new installations) or
// changed (apps with new templates; a changed transform migrates the
// realm too, transformsChanged), so that one it would refuse (with
// WithPostgres, a transform whose SQL names a missing table) refuses the
// whole configuration with nothing changed, instead of becoming a new
// release that no data backend can open. It serves no URI.

package platformtest

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/template"
)

// checkDataBackends checks the data template of every realm of an app
// given new templates and of every new installation of the seed, with
// the registry state of the pass; the error names the app.
func (rc *reconciler) checkDataBackends() error {
	realms := map[string]bool{}
	for _, name := range rc.retemplated {
		for _, r := range rc.st.RealmsOfApp(name) {
			realms[r] = true
		}
	}
	for i, in := range rc.res.Installations {
		if rc.fresh[i] {
			realms[in.Realm()] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(realms)) {
		ri, ok := rc.st.Realm(name)
		if !ok {
			continue // removed by the pass
		}
		a := rc.st.App(ri.App)
		if a == nil {
			continue
		}
		tpl, err := registry.ParseDataTemplate(a.DataTemplate)
		if err != nil {
			return fmt.Errorf("app %q: %w", a.Name, err)
		}
		if err := rc.p.fleet.Check(context.Background(), ri, tpl, rc.allowDrop); err != nil {
			return fmt.Errorf("app %q: the data backend refuses its data template: %w", a.Name, err)
		}
	}
	return nil
}

// transformsChanged tells whether a template change adds, removes or
// changes a transform (its SQL, columns, materialize, schedule…), which
// the realm's data backend follows only when it opens again: such a
// change migrates the realm (its backend reopened, its views made anew)
// though no table changed.
func transformsChanged(ch realm.TemplateChange) bool {
	var old, new []template.Transform
	if ch.Old != nil {
		old = ch.Old.Transforms
	}
	if ch.New != nil {
		new = ch.New.Transforms
	}
	return !reflect.DeepEqual(old, new)
}
