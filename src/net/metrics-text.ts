/**
 * @module net/metrics-text
 * Prometheus text exposition (format 0.0.4, which OpenMetrics scrapers also accept):
 * metric families as plain data, rendered with one HELP and one TYPE line each,
 * label values and help text escaped, histograms as cumulative _bucket{le} series
 * plus _sum and _count. Pure: daemons build families from their state and counters.
 */
import { assert } from "../lib/assert.ts";

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export type MetricType = "counter" | "gauge" | "histogram";

export interface Sample {
  /** Appended to the family name ("_bucket", "_sum", "_count", "_total"); "" for none. */
  suffix?: string;
  labels?: Readonly<Record<string, string>>;
  value: number;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: MetricType;
  samples: Sample[];
}

const NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export const escapeLabelValue = (v: string): string => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
export const escapeHelp = (v: string): string => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");

export function formatValue(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Number.POSITIVE_INFINITY) return "+Inf";
  if (v === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(v);
}

/** Label names seen valid: the set of names is small and fixed, the samples many. */
const checkedLabels = new Set<string>();
function checkLabel(k: string): void {
  assert(LABEL_RE.test(k) && !k.startsWith("__"), `bad label name ${k}`);
  checkedLabels.add(k);
}

function labelText(labels: Readonly<Record<string, string>> | undefined): string {
  if (labels === undefined) return "";
  const keys = Object.keys(labels);
  if (keys.length === 0) return "";
  for (const k of keys) if (!checkedLabels.has(k)) checkLabel(k);
  return `{${keys.map((k) => `${k}="${escapeLabelValue(labels[k] ?? "")}"`).join(",")}}`;
}

/** All families as one exposition text; names must be unique and valid. */
export function renderMetrics(families: readonly MetricFamily[]): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const f of families) {
    assert(NAME_RE.test(f.name), `bad metric name ${f.name}`);
    assert(!seen.has(f.name), `metric family ${f.name} rendered twice`);
    seen.add(f.name);
    out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    for (const s of f.samples) out.push(`${f.name}${s.suffix ?? ""}${labelText(s.labels)} ${formatValue(s.value)}`);
  }
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}

/** A fixed-bucket histogram (an in-memory data structure; upper bounds in seconds or any unit). */
export class Histogram {
  readonly bounds: readonly number[];
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(bounds: readonly number[]) {
    assert(bounds.length > 0 && bounds.every((b, i) => i === 0 || b > (bounds[i - 1] ?? 0)), "histogram bounds must increase");
    this.bounds = bounds;
    this.counts = bounds.map(() => 0);
  }

  observe(value: number): void {
    this.sum += value;
    this.count += 1;
    const i = this.bounds.findIndex((b) => value <= b);
    if (i >= 0) this.counts[i] = (this.counts[i] ?? 0) + 1;
  }

  /** The _bucket (cumulative, ending with le="+Inf"), _sum and _count samples under `labels`. */
  samples(labels: Readonly<Record<string, string>> = {}): Sample[] {
    const out: Sample[] = [];
    let cumulative = 0;
    this.bounds.forEach((b, i) => {
      cumulative += this.counts[i] ?? 0;
      out.push({ suffix: "_bucket", labels: { ...labels, le: formatValue(b) }, value: cumulative });
    });
    assert(cumulative <= this.count, "buckets never hold more than the count");
    out.push({ suffix: "_bucket", labels: { ...labels, le: "+Inf" }, value: this.count });
    out.push({ suffix: "_sum", labels, value: this.sum });
    out.push({ suffix: "_count", labels, value: this.count });
    return out;
  }
}

/** Latency buckets in seconds: 0.5 ms to 10 s. */
export const LATENCY_BUCKETS_SEC = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One gauge family from [labels, value] pairs. */
export function gauge(name: string, help: string, samples: Sample[]): MetricFamily {
  return { name, help, type: "gauge", samples };
}
