/**
 * @module agent/controller-link
 * The agent's side of the controller: which replica it talks to (following "not leader" hints,
 * else the next one in turn), and its periodic turn every TURN_MS on the injected clock:
 * report ended jobs, register (or heartbeat every heartbeatIntervalMs the controller asked
 * for), kill what the controller says this node must not run. Failure policy: a controller
 * that does not answer is retried forever on the next turn; one that refuses this agent's
 * protocol is asked again only every PROTOCOL_RETRY_MS, the refusal logged once per message.
 */
import { ConnectError, type Client } from "@connectrpc/connect";
import type { ConsolaInstance } from "consola/core";
import type { Clock, TimerHandle } from "../lib/clock.ts";
import type { Controller } from "../net/gen/spur/v1/controller_pb.ts";
import type { NodeInfoP } from "../sched/model/types.ts";
import { PROTOCOL_VERSION } from "../version.ts";

/** Time between two turns of the agent's loop (after the previous one finished). */
export const TURN_MS = 250;
/** Until the controller says otherwise (RegisterNode's heartbeatIntervalMs). */
const HEARTBEAT_MS_DEFAULT = 2000;
const PROTOCOL_RETRY_MS = 5000;
const CALL_TIMEOUT_MS = 5000;

/** The calls the agent makes to a controller (a Connect client, or a stub in tests). */
export type ControllerClient = Pick<Client<typeof Controller>, "registerNode" | "heartbeat" | "batchComplete" | "listJobs" | "recordStepUsage">;

export interface LinkDeps {
  node: NodeInfoP;
  urls: string[];
  clientFor(url: string): ControllerClient;
  clock: Clock;
  logger: Pick<ConsolaInstance, "info" | "warn" | "error">;
  /** Jobs this node holds (running, or ended and not yet acknowledged). */
  runningJobIds(): number[];
  /** The host's load average and free memory, sent with each heartbeat (agent/node-load.ts); absent: none sent. */
  load?(): { cpuLoad: number; freeMemoryMib: number };
  /** Kill jobs the controller says are not (or no longer) this node's. */
  killReported(jobIds: number[]): void;
  /** Report the ended jobs of the spool (a controller away: it fails over and stops until the next turn). */
  reportEnded(): Promise<void>;
}

export interface ControllerLink {
  /** The client of the replica in use now (changes on failover). */
  ctl(): ControllerClient;
  /** After a failed call: go to the leader the answer named, else to the next replica. */
  failover(error: unknown): void;
  /** Controllers known (those configured, and leaders learned from hints). */
  replicas(): number;
  /** One turn of the loop (exported for tests; start() runs it every TURN_MS). */
  turn(): Promise<void>;
  /** Start the loop; returns its stop. */
  start(): () => void;
}

export function createControllerLink(d: LinkDeps): ControllerLink {
  const urls = [...d.urls];
  let currentUrl = urls[0] as string;
  let ctl = d.clientFor(currentUrl);
  let registered = false;
  let heartbeatMs = HEARTBEAT_MS_DEFAULT;
  let lastBeatMs = Number.NEGATIVE_INFINITY;
  let refusedUntilMs = 0;
  let lastRefusal = "";

  function failover(error: unknown): void {
    if (urls.length < 2) return;
    const hinted = error instanceof ConnectError ? (error.metadata.get("x-spur-leader") ?? "") : "";
    // A leader missing from our list (a controller added at run time) is followed and kept.
    if (/^https?:\/\/\S+$/.test(hinted) && !urls.includes(hinted)) urls.push(hinted);
    const next = hinted !== "" && urls.includes(hinted) ? hinted : (urls[(urls.indexOf(currentUrl) + 1) % urls.length] as string);
    if (next === currentUrl) return;
    currentUrl = next;
    ctl = d.clientFor(next);
    registered = false;
  }

  async function register(): Promise<void> {
    if (d.clock.now() < refusedUntilMs) return;
    const r = await ctl.registerNode({ node: d.node, runningJobIds: d.runningJobIds(), protocolVersion: PROTOCOL_VERSION }, { timeoutMs: CALL_TIMEOUT_MS });
    registered = true;
    heartbeatMs = r.heartbeatIntervalMs || heartbeatMs;
    d.killReported(r.killJobIds);
    d.logger.info({ message: "registered", node: d.node.name, controller: currentUrl });
  }

  async function beat(): Promise<void> {
    if (d.clock.now() - lastBeatMs < heartbeatMs) return;
    lastBeatMs = d.clock.now();
    const r = await ctl.heartbeat({ node: d.node.name, runningJobIds: d.runningJobIds(), ...(d.load?.() ?? {}) }, { timeoutMs: CALL_TIMEOUT_MS });
    if (r.reregister) registered = false;
    d.killReported(r.killJobIds);
  }

  function failed(error: unknown): void {
    if (registered) d.logger.warn({ message: "controller not answering", error: String(error) });
    if (String(error).includes("protocol version")) {
      refusedUntilMs = d.clock.now() + PROTOCOL_RETRY_MS;
      if (String(error) !== lastRefusal) d.logger.error({ message: String(error), node: d.node.name });
      lastRefusal = String(error);
    }
    registered = false;
    failover(error);
  }

  async function turn(): Promise<void> {
    if (registered) await d.reportEnded();
    try {
      if (!registered) await register();
      else await beat();
    } catch (error) {
      failed(error);
    }
  }

  return {
    ctl: () => ctl,
    failover,
    replicas: () => urls.length,
    turn,
    start() {
      let stopped = false;
      let timer: TimerHandle | undefined;
      const loop = async () => {
        if (stopped) return;
        await turn();
        if (!stopped) timer = d.clock.setTimeout(() => void loop(), TURN_MS);
      };
      void loop();
      return () => {
        stopped = true;
        d.clock.clear(timer);
      };
    },
  };
}
