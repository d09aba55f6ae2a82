// This file holds authorization: the per-realm nexus Authorizer and the
// rules of role app (docs/wire.md §7.9 and the fixed allow-list of the
// platform). A refusal is ERROR wamp.error.not_authorized.
//
// Role app:
//   - wamp.* URIs are refused, except CALL of wamp.session.get;
//   - REGISTER only of the session's own device functions
//     <S>.<D>.<A>.<STAGE>.<name> (S, A, STAGE of the realm, D the session's
//     device key, STAGE in any case), patterns only when they fix those
//     four segments, invoke policy single only;
//   - CALL and PUBLISH of digit-led URIs only within the realm's swarm;
//     PUBLISH to transformed.*, files.events and databackend.errors(.*)
//     is refused (service topics);
//   - SUBSCRIBE to digit-led topics, bulk.* and wamp.* is refused, also by
//     patterns that could match them;
//   - PUBLISH and CALL get disclose_me, so subscribers see publisher_authid
//     and callees caller_authid (the device serial) without asking.
//
// Role app_reader (a consumer's session on a provider's realm) is
// read-only: CALL of history.transformed.* (history and series; the data
// backend refuses private tables and error-logs), of files.read.* and of
// wamp.session.get; SUBSCRIBE to transformed.* and files.events (the
// services exclude app_reader from private feeds). Everything else is
// refused: publish, register, writes, secret.reveal/verify,
// sys.appaccess.*.
//
// Any other role may not publish, call, subscribe or register.

package router

import (
	"strconv"
	"strings"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// authorizer is the nexus Authorizer of one realm.
type authorizer struct {
	rt    *Router
	realm realm.Info
}

// Authorize decides whether a network session may send msg. Local
// sessions (the platform's own services) are trusted by nexus and never
// reach it.
func (a *authorizer) Authorize(sess *wamp.Session, msg wamp.Message) (bool, error) {
	s := a.rt.sessionByID(uint64(sess.ID))
	if s == nil {
		return false, nil
	}
	return permit(s, msg), nil
}

// permit applies the rules of s's role to msg, as Authorize; it adds the
// options an authorized PUBLISH or CALL goes on with. The router asks it
// itself for the calls it serves (direct.go).
func permit(s *session, msg wamp.Message) bool {
	switch msg.(type) {
	case *wamp.Publish, *wamp.Call, *wamp.Subscribe, *wamp.Register:
	default:
		return true // YIELD, ERROR, UNSUBSCRIBE, UNREGISTER, CANCEL, GOODBYE
	}
	switch {
	case s.role == wire.RoleAppReader:
		if !readerMay(msg) {
			return false
		}
	case s.role != wire.RoleApp || !appMay(s.realm, s.device.Key, msg):
		return false
	}
	switch m := msg.(type) {
	case *wamp.Publish:
		if m.Options == nil {
			m.Options = wamp.Dict{}
		}
		m.Options[wire.OptDiscloseMe] = true
		m.Options[publisherKey] = &publisherIdent{session: s.id, authID: s.authID, authRole: s.role}
	case *wamp.Call:
		if m.Options == nil {
			m.Options = wamp.Dict{}
		}
		m.Options[wire.OptDiscloseMe] = true
		if tr := realm.TraceOfOptions(m.Options); tr != nil {
			m.Arguments = realm.WithTrace(m.Arguments, tr) // for the INVOCATION's details
		}
	}
	return true
}

// appMay applies the rules of role app on realm ri for a session of
// device deviceKey.
func appMay(ri realm.Info, deviceKey int, msg wamp.Message) bool {
	swarm := strconv.Itoa(ri.Swarm)
	switch m := msg.(type) {
	case *wamp.Publish:
		uri := string(m.Topic)
		return !isWAMP(uri) && inSwarm(uri, swarm) &&
			!strings.HasPrefix(uri, "transformed.") && uri != wire.FilesEventsTopic && !dataErrorsTopic(uri)
	case *wamp.Call:
		uri := string(m.Procedure)
		if isWAMP(uri) {
			return uri == wire.SessionGetProc
		}
		return inSwarm(uri, swarm)
	case *wamp.Subscribe:
		match, _ := wamp.AsString(m.Options[wire.OptMatch])
		return subscribeAllowed(string(m.Topic), match)
	case *wamp.Register:
		match, _ := wamp.AsString(m.Options[wire.OptMatch])
		invoke, _ := wamp.AsString(m.Options[wamp.OptInvoke])
		if invoke != "" && invoke != wamp.InvokeSingle {
			return false
		}
		return registerAllowed(ri, deviceKey, string(m.Procedure), match)
	}
	return true
}

// readerMay applies the rules of role app_reader.
func readerMay(msg wamp.Message) bool {
	switch m := msg.(type) {
	case *wamp.Call:
		uri := string(m.Procedure)
		return strings.HasPrefix(uri, "history.transformed.") || strings.HasPrefix(uri, "files.read.") || uri == wire.SessionGetProc
	case *wamp.Subscribe:
		topic := string(m.Topic)
		match, _ := wamp.AsString(m.Options[wire.OptMatch])
		switch match {
		case "", wire.MatchExact:
			return strings.HasPrefix(topic, "transformed.") || topic == wire.FilesEventsTopic
		case wire.MatchPrefix:
			return strings.HasPrefix(topic, "transformed.")
		}
	}
	return false
}

func isWAMP(uri string) bool { return strings.HasPrefix(uri, "wamp.") }

// dataErrorsTopic reports a topic of the data backend's refusal reports,
// databackend.errors and databackend.errors.*: subscribe-only.
func dataErrorsTopic(uri string) bool {
	return uri == strings.TrimSuffix(wire.DataErrorsPrefix, ".") || strings.HasPrefix(uri, wire.DataErrorsPrefix)
}

func digitLed(uri string) bool { return uri != "" && uri[0] >= '0' && uri[0] <= '9' }

func firstSegment(uri string) string {
	seg, _, _ := strings.Cut(uri, ".")
	return seg
}

// inSwarm reports whether a URI is not digit-led or starts with the swarm.
func inSwarm(uri, swarm string) bool { return !digitLed(uri) || firstSegment(uri) == swarm }

// subscribeAllowed refuses the raw write topics (digit-led and bulk.*,
// they carry plaintext secrets) and wamp.*, also through patterns that
// could match them.
func subscribeAllowed(topic, match string) bool {
	switch match {
	case "", wire.MatchExact:
		return !digitLed(topic) && !strings.HasPrefix(topic, "bulk.") && !isWAMP(topic)
	case wire.MatchPrefix:
		if topic == "" || digitLed(topic) {
			return false
		}
		for _, guarded := range []string{"bulk.", "wamp."} {
			if strings.HasPrefix(guarded, topic) || strings.HasPrefix(topic, guarded) {
				return false
			}
		}
		return true
	case wire.MatchWildcard:
		switch first := firstSegment(topic); {
		case first == "", digitLed(first), first == "bulk", first == "wamp":
			return false
		}
		return true
	default:
		return false
	}
}

// registerAllowed accepts only the session's own device functions: the
// first four segments must be the realm's swarm, the session's device key,
// the realm's app and stage (any case), and a name must follow (a pattern
// may leave the name open).
func registerAllowed(ri realm.Info, deviceKey int, uri, match string) bool {
	segs := strings.Split(uri, ".")
	if len(segs) < 5 ||
		segs[0] != strconv.Itoa(ri.Swarm) ||
		segs[1] != strconv.Itoa(deviceKey) ||
		segs[2] != strconv.Itoa(ri.App) ||
		!strings.EqualFold(segs[3], string(ri.Stage)) {
		return false
	}
	switch match {
	case "", wire.MatchExact:
		for _, s := range segs[4:] {
			if s == "" {
				return false
			}
		}
		return true
	case wire.MatchPrefix, wire.MatchWildcard:
		return true
	default:
		return false
	}
}
