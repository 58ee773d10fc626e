/**
 * A node's load as the agent reports it and the controller shows it: the one-minute load average
 * and MemFree in MiB (oracle 22.05: scontrol CPULoad=1.78 FreeMem=22831, sinfo -O CPUsLoad,FreeMem;
 * Spur showed 0.00 and 0 for every node), kept in memory from heartbeats, never logged.
 */
import { createConsola } from "consola";
import { describe, expect, it } from "vitest";
import { freeMemoryMibOf, loadAverageOf } from "../../../src/agent/node-load.ts";
import { createController } from "../../../src/ctld/controller.ts";
import type { AgentLink } from "../../../src/ctld/agent-link.ts";
import type { LogStore } from "../../../src/ctld/log-store.ts";
import { nodeViewsList } from "../../../src/ctld/views.ts";
import { createFakeClock } from "../../../src/lib/fake-clock.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import { cluster } from "../sched/builders.ts";

describe("reading /proc", () => {
  it("takes the one-minute load average", () => {
    expect(loadAverageOf("1.78 1.39 1.22 3/157 4732\n")).toBe(1.78);
    expect(loadAverageOf("")).toBe(0);
    expect(loadAverageOf("garbage")).toBe(0);
  });

  it("takes MemFree in whole MiB, not MemAvailable", () => {
    const meminfo = "MemTotal:       24683756 kB\nMemFree:        23379000 kB\nMemAvailable:   24034604 kB\n";
    expect(freeMemoryMibOf(meminfo)).toBe(22831);
    expect(freeMemoryMibOf("MemTotal: 1 kB\n")).toBe(0);
  });
});

describe("the controller", () => {
  it("shows what a node's last heartbeat said, and nothing is logged for it", () => {
    const { state } = cluster();
    const appended: Command[] = [];
    const log: LogStore = {
      append(command) {
        return this.appendMany([command]);
      },
      appendMany(commands) {
        appended.push(...commands);
        return state.appliedIndex + appended.length;
      },
      *entries() {},
      lastIndex: () => state.appliedIndex + appended.length,
      close: () => undefined,
    };
    const clock = createFakeClock(1_000_000_000);
    const c = createController({ state, log, logger: createConsola({ level: -999 }), now: () => clock.now() / 1000, agents: {} as AgentLink, clock });
    const node = [...state.nodes.keys()][0] as string;
    const shown = () => nodeViewsList(c, clock.now() / 1000).nodes.find((n) => n.name === node);
    expect(shown()?.cpuLoad).toBe(0);
    c.heartbeat(node, { cpuLoad: 1.78, freeMemoryMib: 22831 });
    expect(shown()).toMatchObject({ cpuLoad: 1.78, freeMemoryMib: 22831 });
    c.heartbeat(node);
    expect(shown()).toMatchObject({ cpuLoad: 1.78, freeMemoryMib: 22831 }); // a beat without figures keeps the last ones
    expect(appended).toEqual([]);
  });
});
