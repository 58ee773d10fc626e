/**
 * @module net/metrics-process
 * The process families every Prometheus client library exports under the same names
 * (process_cpu_seconds_total, process_resident_memory_bytes, process_virtual_memory_bytes,
 * process_open_fds, process_max_fds, process_start_time_seconds), so a site's dashboards and
 * alerts for daemon memory, CPU and file descriptors work on Spur's daemons as on any
 * exporter; and the JavaScript heap (spur_js_heap_bytes), which is where a controller's jobs
 * live. processFamilies is pure; readProcessFacts reads them for this process (/proc on
 * Linux; what it cannot read is left out, never guessed).
 */
import { readFileSync, readdirSync } from "node:fs";
import { gauge, type MetricFamily } from "./metrics-text.ts";

export interface ProcessFacts {
  /** user + system CPU, seconds */
  cpuSeconds: number;
  residentBytes: number;
  /** the JavaScript heap: bytes of live objects, and what the runtime has reserved for them */
  heapUsedBytes: number;
  heapCapacityBytes: number;
  /** memory outside the heap's cells that its objects own and report (string characters, buffers) */
  heapExternalBytes?: number;
  startTimeSeconds: number;
  virtualBytes?: number;
  openFds?: number;
  maxFds?: number;
}

export function processFamilies(p: ProcessFacts): MetricFamily[] {
  const out: MetricFamily[] = [
    { name: "process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.", type: "counter", samples: [{ value: p.cpuSeconds }] },
    gauge("process_resident_memory_bytes", "Resident memory size in bytes.", [{ value: p.residentBytes }]),
  ];
  if (p.virtualBytes !== undefined) out.push(gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", [{ value: p.virtualBytes }]));
  if (p.openFds !== undefined) out.push(gauge("process_open_fds", "Number of open file descriptors.", [{ value: p.openFds }]));
  if (p.maxFds !== undefined) out.push(gauge("process_max_fds", "Maximum number of open file descriptors.", [{ value: p.maxFds }]));
  out.push(
    gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", [{ value: p.startTimeSeconds }]),
    gauge("spur_js_heap_bytes", "The JavaScript heap: bytes of live objects (used) and bytes the runtime holds for them (capacity)", [
      { labels: { kind: "used" }, value: p.heapUsedBytes },
      { labels: { kind: "capacity" }, value: p.heapCapacityBytes },
      ...(p.heapExternalBytes === undefined ? [] : [{ labels: { kind: "external" }, value: p.heapExternalBytes }]),
    ]),
  );
  return out;
}

/** This process's facts now; `startedAt` is the daemon's start (Unix seconds). */
export function readProcessFacts(startedAt: number): ProcessFacts {
  const mem = process.memoryUsage();
  const cpu = process.cpuUsage();
  const facts: ProcessFacts = {
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    residentBytes: mem.rss,
    heapUsedBytes: mem.heapUsed,
    heapCapacityBytes: mem.heapTotal,
    heapExternalBytes: mem.external,
    startTimeSeconds: startedAt,
  };
  try {
    // /proc/self/stat: the fields after the command's closing parenthesis; vsize is the 23rd field of the line
    const rest = readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? [];
    const vsize = Number(rest[20]);
    if (Number.isFinite(vsize) && vsize > 0) facts.virtualBytes = vsize;
  } catch {
    // not Linux: left out
  }
  try {
    facts.openFds = readdirSync("/proc/self/fd").length;
  } catch {
    // left out
  }
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"));
    if (m?.[1] !== undefined) facts.maxFds = Number(m[1]);
  } catch {
    // left out
  }
  return facts;
}
