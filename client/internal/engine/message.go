// This file holds the WAMP messages the engine sends and receives, as Go
// values: one struct per message type, with its elements in wire order.
// Values inside (options, details, payloads) are in wire form: nil, bool,
// string, int64, uint64 (above math.MaxInt64), float64, []byte, []any and
// map[string]any; the encoder also takes the other Go integer and float
// types.

package engine

import "strconv"

// msgType is a WAMP message type code.
type msgType int

// The message types of the WAMP basic profile.
const (
	mtHello        msgType = 1
	mtWelcome      msgType = 2
	mtAbort        msgType = 3
	mtChallenge    msgType = 4
	mtAuthenticate msgType = 5
	mtGoodbye      msgType = 6
	mtError        msgType = 8
	mtPublish      msgType = 16
	mtPublished    msgType = 17
	mtSubscribe    msgType = 32
	mtSubscribed   msgType = 33
	mtUnsubscribe  msgType = 34
	mtUnsubscribed msgType = 35
	mtEvent        msgType = 36
	mtCall         msgType = 48
	mtCancel       msgType = 49
	mtResult       msgType = 50
	mtRegister     msgType = 64
	mtRegistered   msgType = 65
	mtUnregister   msgType = 66
	mtUnregistered msgType = 67
	mtInvocation   msgType = 68
	mtInterrupt    msgType = 69
	mtYield        msgType = 70
)

var msgTypeNames = map[msgType]string{
	mtHello: "HELLO", mtWelcome: "WELCOME", mtAbort: "ABORT", mtChallenge: "CHALLENGE",
	mtAuthenticate: "AUTHENTICATE", mtGoodbye: "GOODBYE", mtError: "ERROR", mtPublish: "PUBLISH",
	mtPublished: "PUBLISHED", mtSubscribe: "SUBSCRIBE", mtSubscribed: "SUBSCRIBED",
	mtUnsubscribe: "UNSUBSCRIBE", mtUnsubscribed: "UNSUBSCRIBED", mtEvent: "EVENT", mtCall: "CALL",
	mtCancel: "CANCEL", mtResult: "RESULT", mtRegister: "REGISTER", mtRegistered: "REGISTERED",
	mtUnregister: "UNREGISTER", mtUnregistered: "UNREGISTERED", mtInvocation: "INVOCATION",
	mtInterrupt: "INTERRUPT", mtYield: "YIELD",
}

// String returns the message type's name, or its code when it has none.
func (t msgType) String() string {
	if s, ok := msgTypeNames[t]; ok {
		return s
	}
	return "message type " + strconv.Itoa(int(t))
}

// message is one WAMP message.
type message interface{ kind() msgType }

// [HELLO, Realm|uri, Details|dict]
type helloMsg struct {
	Realm   string
	Details map[string]any
}

// [WELCOME, Session|id, Details|dict]
type welcomeMsg struct {
	ID      uint64
	Details map[string]any
}

// [CHALLENGE, AuthMethod|string, Extra|dict]
type challengeMsg struct {
	AuthMethod string
	Extra      map[string]any
}

// [AUTHENTICATE, Signature|string, Extra|dict]
type authenticateMsg struct {
	Signature string
	Extra     map[string]any
}

// [GOODBYE, Details|dict, Reason|uri]
type goodbyeMsg struct {
	Details map[string]any
	Reason  string
}

// [ERROR, REQUEST.Type|int, REQUEST.Request|id, Details|dict, Error|uri, Arguments|list, ArgumentsKw|dict]
type errorMsg struct {
	Type    msgType
	Request uint64
	Details map[string]any
	Error   string
	Args    []any
	Kwargs  map[string]any
}

// [PUBLISH, Request|id, Options|dict, Topic|uri, Arguments|list, ArgumentsKw|dict]
type publishMsg struct {
	Request uint64
	Options map[string]any
	Topic   string
	Args    []any
	Kwargs  map[string]any
}

// [PUBLISHED, PUBLISH.Request|id, Publication|id]
type publishedMsg struct{ Request, Publication uint64 }

// [SUBSCRIBE, Request|id, Options|dict, Topic|uri]
type subscribeMsg struct {
	Request uint64
	Options map[string]any
	Topic   string
}

// [SUBSCRIBED, SUBSCRIBE.Request|id, Subscription|id]
type subscribedMsg struct{ Request, Subscription uint64 }

// [UNSUBSCRIBE, Request|id, SUBSCRIBED.Subscription|id]
type unsubscribeMsg struct{ Request, Subscription uint64 }

// [UNSUBSCRIBED, UNSUBSCRIBE.Request|id] (a Details dict may follow).
type unsubscribedMsg struct{ Request uint64 }

// [EVENT, SUBSCRIBED.Subscription|id, PUBLISHED.Publication|id, Details|dict, Arguments|list, ArgumentsKw|dict]
type eventMsg struct {
	Subscription, Publication uint64
	Details                   map[string]any
	Args                      []any
	Kwargs                    map[string]any
}

// [CALL, Request|id, Options|dict, Procedure|uri, Arguments|list, ArgumentsKw|dict]
type callMsg struct {
	Request   uint64
	Options   map[string]any
	Procedure string
	Args      []any
	Kwargs    map[string]any
}

// [CANCEL, CALL.Request|id, Options|dict]
type cancelMsg struct {
	Request uint64
	Options map[string]any
}

// [RESULT, CALL.Request|id, Details|dict, Arguments|list, ArgumentsKw|dict]
type resultMsg struct {
	Request uint64
	Details map[string]any // nil when read lazily (lazy.go)
	Args    []any
	Kwargs  map[string]any

	// progress is details.progress; raw the payload when read lazily (then
	// Args and Kwargs are not set until dispatch decodes it).
	progress bool
	raw      rawPayload
}

// [REGISTER, Request|id, Options|dict, Procedure|uri]
type registerMsg struct {
	Request   uint64
	Options   map[string]any
	Procedure string
}

// [REGISTERED, REGISTER.Request|id, Registration|id]
type registeredMsg struct{ Request, Registration uint64 }

// [UNREGISTER, Request|id, REGISTERED.Registration|id]
type unregisterMsg struct{ Request, Registration uint64 }

// [UNREGISTERED, UNREGISTER.Request|id] or, when the router revokes a
// registration (another session took it over), [UNREGISTERED, 0,
// {"registration": id}]: Registration holds that id.
type unregisteredMsg struct{ Request, Registration uint64 }

// [INVOCATION, Request|id, REGISTERED.Registration|id, Details|dict, CALL.Arguments|list, CALL.ArgumentsKw|dict]
type invocationMsg struct {
	Request, Registration uint64
	Details               map[string]any // nil when read lazily (lazy.go)
	Args                  []any
	Kwargs                map[string]any

	// The details the session uses (invocationDetails), and the payload
	// when read lazily (then Args and Kwargs are not set until dispatch
	// decodes it).
	invocationDetails
	raw rawPayload
}

// invocationDetails are the details of an INVOCATION the session uses:
// the call's timeout in milliseconds (0: none), whether the caller asked
// for progressive results, and the caller when disclosed.
type invocationDetails struct {
	timeout      int64
	progress     bool
	caller       uint64
	callerAuthID string
	trace        Trace
}

// [INTERRUPT, INVOCATION.Request|id, Options|dict]
type interruptMsg struct {
	Request uint64
	Options map[string]any
}

// [YIELD, INVOCATION.Request|id, Options|dict, Arguments|list, ArgumentsKw|dict]
type yieldMsg struct {
	Request uint64
	Options map[string]any
	Args    []any
	Kwargs  map[string]any
}

// otherMsg is a message of a type the engine does not handle.
type otherMsg struct{ typ msgType }

func (*helloMsg) kind() msgType        { return mtHello }
func (*welcomeMsg) kind() msgType      { return mtWelcome }
func (*challengeMsg) kind() msgType    { return mtChallenge }
func (*authenticateMsg) kind() msgType { return mtAuthenticate }
func (*goodbyeMsg) kind() msgType      { return mtGoodbye }
func (*errorMsg) kind() msgType        { return mtError }
func (*publishMsg) kind() msgType      { return mtPublish }
func (*publishedMsg) kind() msgType    { return mtPublished }
func (*subscribeMsg) kind() msgType    { return mtSubscribe }
func (*subscribedMsg) kind() msgType   { return mtSubscribed }
func (*unsubscribeMsg) kind() msgType  { return mtUnsubscribe }
func (*unsubscribedMsg) kind() msgType { return mtUnsubscribed }
func (*eventMsg) kind() msgType        { return mtEvent }
func (*callMsg) kind() msgType         { return mtCall }
func (*cancelMsg) kind() msgType       { return mtCancel }
func (*resultMsg) kind() msgType       { return mtResult }
func (*registerMsg) kind() msgType     { return mtRegister }
func (*registeredMsg) kind() msgType   { return mtRegistered }
func (*unregisterMsg) kind() msgType   { return mtUnregister }
func (*unregisteredMsg) kind() msgType { return mtUnregistered }
func (*invocationMsg) kind() msgType   { return mtInvocation }
func (*interruptMsg) kind() msgType    { return mtInterrupt }
func (*yieldMsg) kind() msgType        { return mtYield }
func (m otherMsg) kind() msgType       { return m.typ }
