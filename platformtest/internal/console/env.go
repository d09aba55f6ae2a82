// This file serves an installation's device environment as text, for
// flockd env and the download links of the device page:
//
//	GET /env/{device}  ?app=NAME|KEY (may be left out when the device has
//	                   one installation), ?stage=DEV|PROD, ?format=shell
//	                   (export lines, the default) | dotenv | json,
//	                   ?download=1 (as an attachment)
//
// {device} is a device's key, name or serial. The answer is text/plain
// (application/json for json), the secret included, as "show the secret"
// shows it; a refusal is text/plain too, one reason with the choices when
// the request was ambiguous: 404 no such device or installation, 409 a
// name that several devices or installations answer to, 400 a bad format.

package console

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/flockgo/ironflock/internal/dotenv"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// envFormats are the formats of GET /env/{device}, with their file suffix
// and content type.
var envFormats = map[string]struct{ suffix, contentType string }{
	"shell":  {".sh", "text/plain; charset=utf-8"},
	"dotenv": {".env", "text/plain; charset=utf-8"},
	"json":   {".json", "application/json"},
}

// envTarget is the installation an env request names.
type envTarget struct {
	device        string
	deviceKey     int
	app           string
	appKey        int
	stage, realm  string
	problem       string // why there is none, when there is none
	problemStatus int
}

func (c *Console) env(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	format := q.Get("format")
	if format == "" {
		format = "shell"
	}
	f, ok := envFormats[format]
	if !ok {
		http.Error(w, fmt.Sprintf("unknown format %q: use shell, dotenv or json", format), http.StatusBadRequest)
		return
	}
	tg := c.envTarget(r.PathValue("device"), q.Get("app"), q.Get("stage"))
	if tg.problem != "" {
		http.Error(w, tg.problem, tg.problemStatus)
		return
	}
	var env map[string]string
	if c.cfg.Env != nil {
		env = c.cfg.Env(tg.deviceKey, tg.appKey, tg.stage)
	}
	var body []byte
	var err error
	switch format {
	case "shell":
		body, err = dotenv.Shell(env)
	case "dotenv":
		body, err = dotenv.Marshal(env)
	case "json":
		body, err = json.MarshalIndent(env, "", "  ")
		body = append(body, '\n')
	}
	if err != nil {
		http.Error(w, "the environment cannot be written as "+format+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	c.cfg.Log.Info("console handed out an installation's environment", "device", tg.device, "realm", tg.realm, "format", format)
	w.Header().Set("Content-Type", f.contentType)
	w.Header().Set("Cache-Control", "no-store")
	if q.Get("download") == "1" {
		name := fmt.Sprintf("%s-%s-%s%s", tg.device, tg.app, strings.ToLower(tg.stage), f.suffix)
		w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
	}
	_, _ = w.Write(body)
}

// envTarget finds the installation of device (key, name or serial) that
// app (name or key; "": the only one) and stage ("": any) name.
func (c *Console) envTarget(device, app, stage string) envTarget {
	var tg envTarget
	c.cfg.Registry.Do(func(s *registry.State) {
		var found []*registry.Device
		if key, err := strconv.Atoi(device); err == nil && s.Device(key) != nil {
			found = append(found, s.Device(key))
		} else { // through the registry's indexes, not the whole fleet
			if d := s.DeviceBySerial(device); d != nil {
				found = append(found, d)
			}
			for _, pr := range s.Projects() {
				if d := s.DeviceNamed(pr, device); d != nil && !slices.Contains(found, d) {
					found = append(found, d)
				}
			}
			slices.SortFunc(found, func(a, b *registry.Device) int { return cmp.Compare(a.Key, b.Key) })
		}
		switch len(found) {
		case 0:
			tg.problem, tg.problemStatus = fmt.Sprintf("there is no device %q (give a device's name, key or serial; the console's fleet page lists them)", device), http.StatusNotFound
			return
		case 1:
		default:
			var names []string
			for _, d := range found {
				names = append(names, fmt.Sprintf("key %d in project %s", d.Key, d.Project.Name))
			}
			tg.problem, tg.problemStatus = fmt.Sprintf("%d devices are named %q: %s; give the key", len(found), device, strings.Join(names, ", ")), http.StatusConflict
			return
		}
		d := found[0]
		var all, match []*registry.Installation
		for _, in := range s.DeviceInstalls(d) {
			all = append(all, in)
			if (app == "" || in.App.Name == app || strconv.Itoa(in.App.Key) == app) && (stage == "" || strings.EqualFold(in.Stage, stage)) {
				match = append(match, in)
			}
		}
		list := func(ins []*registry.Installation) string {
			var out []string
			for _, in := range ins {
				out = append(out, in.App.Name+" "+in.Stage)
			}
			return strings.Join(out, ", ")
		}
		switch {
		case len(all) == 0:
			tg.problem, tg.problemStatus = fmt.Sprintf("device %s has no app installed", d.Name), http.StatusNotFound
		case len(match) == 0:
			tg.problem, tg.problemStatus = fmt.Sprintf("device %s has no installation of %s; it has: %s", d.Name, describeApp(app, stage), list(all)), http.StatusNotFound
		case len(match) > 1:
			tg.problem, tg.problemStatus = fmt.Sprintf("device %s has %d installations%s: %s; name the app (and the stage)", d.Name, len(match), describeFilter(app, stage), list(match)), http.StatusConflict
		default:
			in := match[0]
			tg = envTarget{device: d.Name, deviceKey: d.Key, app: in.App.Name, appKey: in.App.Key, stage: in.Stage, realm: in.Realm}
		}
	})
	return tg
}

// describeApp names what an env request asked for.
func describeApp(app, stage string) string {
	switch {
	case app == "":
		return "an app in " + stage
	case stage == "":
		return "app " + app
	}
	return "app " + app + " in " + stage
}

// describeFilter says how an ambiguous env request was narrowed.
func describeFilter(app, stage string) string {
	if app == "" && stage == "" {
		return ""
	}
	return " of " + describeApp(app, stage)
}
