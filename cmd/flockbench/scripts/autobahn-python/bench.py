"""flockbench's optional autobahn-python comparison.

CPU per operation of acknowledged publish (1 and 16 in flight) and call (1
and 16 callers) against a flockd, measured with
resource.getrusage(RUSAGE_SELF) over a fixed interval after a warm-up, on
asyncio with msgpack. flockbench -with-python runs it with the connection
and payload in environment variables and reads one JSON line per scenario
and interval (FLOCKBENCH_COUNT of them) from its standard output:

    {"scenario": "pub1", "ops": 1234, "wall_ms": 3000.1, "cpu_us": 98765}
"""

import asyncio
import json
import os
import resource
import sys
import time

from autobahn.asyncio.wamp import ApplicationRunner, ApplicationSession
from autobahn.wamp import auth
from autobahn.wamp.serializer import MsgPackSerializer
from autobahn.wamp.types import PublishOptions


def need(name):
    value = os.environ.get(name, "")
    if not value:
        raise SystemExit(f"autobahn-python bench: environment variable {name} is not set")
    return value


CFG = {
    "url": need("FLOCKBENCH_WS_URL"),
    "realm": need("FLOCKBENCH_REALM"),
    "authid": need("FLOCKBENCH_AUTHID"),
    "secret": need("FLOCKBENCH_SECRET"),
    "topic": need("FLOCKBENCH_TOPIC"),
    "procedure": os.environ.get("FLOCKBENCH_PROCEDURE", ""),
    "row": json.loads(need("FLOCKBENCH_ROW")),
    "kwargs": json.loads(need("FLOCKBENCH_KWARGS")),
    "scenarios": need("FLOCKBENCH_SCENARIOS").split(","),
    "duration": int(need("FLOCKBENCH_DURATION_MS")) / 1000,
    "warmup": int(need("FLOCKBENCH_WARMUP_MS")) / 1000,
    "count": int(os.environ.get("FLOCKBENCH_COUNT", "1")),
}

FAILED = []


def cpu_seconds():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


async def measure(name, in_flight, op):
    """Keeps in_flight loops of op going; returns the figures of each interval."""
    state = {"ops": 0, "stop": False}

    async def loop():
        while not state["stop"]:
            await op()
            state["ops"] += 1

    tasks = [asyncio.ensure_future(loop()) for _ in range(in_flight)]
    await asyncio.sleep(CFG["warmup"])
    out = []
    for _ in range(CFG["count"]):
        ops0, cpu0, t0 = state["ops"], cpu_seconds(), time.monotonic()
        await asyncio.sleep(CFG["duration"])
        ops1, cpu1, t1 = state["ops"], cpu_seconds(), time.monotonic()
        out.append({"scenario": name, "ops": ops1 - ops0, "wall_ms": (t1 - t0) * 1000, "cpu_us": (cpu1 - cpu0) * 1e6})
    state["stop"] = True
    await asyncio.gather(*tasks)
    return out


class Bench(ApplicationSession):
    def onConnect(self):
        self.join(self.config.realm, ["wampcra"], CFG["authid"])

    def onChallenge(self, challenge):
        if challenge.method != "wampcra":
            raise Exception(f"unexpected auth method {challenge.method}")
        sig = auth.compute_wcs(CFG["secret"], challenge.extra["challenge"])
        return sig.decode("ascii") if isinstance(sig, bytes) else sig

    async def onJoin(self, details):
        row, kwargs = CFG["row"], CFG["kwargs"]
        ack = PublishOptions(acknowledge=True)

        async def publish():
            await self.publish(CFG["topic"], row, options=ack, **kwargs)

        async def call():
            await self.call(CFG["procedure"], row)

        scenarios = {"pub1": (1, publish), "pub16": (16, publish), "call1": (1, call), "call16": (16, call)}
        try:
            for name in CFG["scenarios"]:
                if name not in scenarios:
                    raise Exception(f"unknown scenario {name}")
                in_flight, op = scenarios[name]
                for result in await measure(name, in_flight, op):
                    print(json.dumps(result), flush=True)
        except Exception as exc:  # reported, and the exit status says so
            FAILED.append(exc)
            print(f"autobahn-python bench: {exc!r}", file=sys.stderr)
        finally:
            self.leave()

    def onDisconnect(self):
        asyncio.get_event_loop().stop()


def main():
    runner = ApplicationRunner(CFG["url"], CFG["realm"], serializers=[MsgPackSerializer()])
    runner.run(Bench)
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
