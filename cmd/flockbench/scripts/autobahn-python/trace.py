"""flockbench's trace interop check with autobahn-python (trace_interop_test.go,
build tag interop): as a subscriber and a callee it takes the EVENT and
INVOCATION of an SDK client with trace propagation, whose details carry
_traceparent and _tracestate (docs/wire.md section 13), and prints each as a
JSON line with the details as received on the wire (raw_details); on a
line on its standard input it publishes to and calls the SDK client, prints
{"ok": true, ...} and leaves. Connection and URIs come from the PROBE_*
environment variables; the serializer (msgpack, json) is its argument.
"""

import asyncio, json, os, sys
from autobahn.asyncio.wamp import ApplicationSession, ApplicationRunner
from autobahn.wamp import auth
from autobahn.wamp.types import PublishOptions, RegisterOptions, SubscribeOptions
from autobahn.wamp.serializer import MsgPackSerializer, JsonSerializer

env = os.environ

# The details of the last EVENT and INVOCATION as parsed from the wire:
# autobahn's EventDetails and CallDetails keep only the keys it knows.
from autobahn.wamp import message as _m
_raw = {}
for _cls, _pos in ((_m.Event, 3), (_m.Invocation, 3)):
    def _wrap(orig, name, pos):
        def parse(wmsg):
            _raw[name] = wmsg[pos]
            return orig(wmsg)
        return staticmethod(parse)
    _cls.parse = _wrap(_cls.parse, _cls.__name__, _pos)

def out(o):
    sys.stdout.write(json.dumps(o, default=str) + "\n")
    sys.stdout.flush()

class Probe(ApplicationSession):
    def onConnect(self):
        self.join(self.config.realm, ["wampcra"], env["PROBE_AUTHID"])

    def onChallenge(self, challenge):
        sig = auth.compute_wcs(env["PROBE_SECRET"], challenge.extra["challenge"])
        return sig.decode("ascii") if isinstance(sig, bytes) else sig

    async def onJoin(self, details):
        def on_event(*args, **kwargs):
            d = kwargs.pop("details")
            out({"kind": "event", "args": list(args), "raw_details": _raw.get("Event"), "details": {"publisher": d.publisher, "topic": d.topic, "publisher_authid": d.publisher_authid}})

        def on_call(*args, **kwargs):
            d = kwargs.pop("details")
            out({"kind": "invocation", "args": list(args), "raw_details": _raw.get("Invocation"), "details": {"procedure": d.procedure, "caller_authid": d.caller_authid}})
            return args[0]

        await self.subscribe(on_event, env["PROBE_TOPIC"], options=SubscribeOptions(details_arg="details"))
        await self.register(on_call, env["PROBE_PROC"], options=RegisterOptions(details_arg="details"))
        out({"ready": True})
        loop = asyncio.get_event_loop()
        await loop.run_in_executor(None, sys.stdin.readline)
        try:
            await self.publish(env["PROBE_BACK"], {"from": "autobahn-python"}, options=PublishOptions(acknowledge=True))
            r = await self.call(env["PROBE_SDKPROC"], {"from": "autobahn-python"})
            out({"ok": True, "result": r})
        except Exception as e:
            out({"ok": False, "error": str(e)})
        self.leave()

    def onDisconnect(self):
        asyncio.get_event_loop().stop()

ser = MsgPackSerializer() if sys.argv[1] == "msgpack" else JsonSerializer()
ApplicationRunner(env["PROBE_URL"], env["PROBE_REALM"], serializers=[ser]).run(Probe)
