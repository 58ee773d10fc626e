/**
 * A strict reader of the Prometheus text exposition format (0.0.4), written from the
 * format's rules, to check what Spur's endpoints print: every sample belongs to a family
 * announced by one HELP and one TYPE line before its samples, names and label names are
 * valid, label values use only the three escapes, values parse, no series repeats,
 * histogram buckets are cumulative and end with le="+Inf" equal to _count.
 */
export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface ParsedFamily {
  name: string;
  help: string;
  type: string;
  samples: ParsedSample[];
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const SAMPLE_RE = new RegExp(`^(${NAME})(\\{.*\\})? (\\S+)$`);

function unescapeHelp(s: string): string {
  return s.replace(/\\(.)/g, (_m, c: string) => {
    if (c === "n") return "\n";
    if (c === "\\") return "\\";
    throw new Error(`bad escape \\${c} in HELP`);
  });
}

/** {a="x",b="y\"z"} → record; throws on anything malformed. */
function parseLabels(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 1;
  while (i < text.length - 1) {
    const m = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(text.slice(i));
    if (m === null) throw new Error(`bad label at ${text.slice(i)}`);
    const key = m[1] ?? "";
    i += m[0].length;
    let value = "";
    for (;;) {
      const c = text[i];
      if (c === undefined) throw new Error("unterminated label value");
      if (c === "\n") throw new Error("raw newline in label value");
      if (c === '"') break;
      if (c === "\\") {
        const e = text[i + 1];
        if (e === "n") value += "\n";
        else if (e === "\\" || e === '"') value += e;
        else throw new Error(`bad escape \\${e} in label value`);
        i += 2;
        continue;
      }
      value += c;
      i += 1;
    }
    i += 1;
    if (key in out) throw new Error(`label ${key} twice`);
    out[key] = value;
    if (text[i] === ",") i += 1;
    else if (i !== text.length - 1) throw new Error(`expected , or } at ${text.slice(i)}`);
  }
  return out;
}

function parseValue(s: string): number {
  if (s === "+Inf") return Infinity;
  if (s === "-Inf") return -Infinity;
  if (s === "NaN") return NaN;
  if (!/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(s)) throw new Error(`bad value ${s}`);
  return Number(s);
}

function familyOf(sampleName: string, families: Map<string, ParsedFamily>): ParsedFamily | undefined {
  const direct = families.get(sampleName);
  if (direct !== undefined) return direct;
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (!sampleName.endsWith(suffix)) continue;
    const f = families.get(sampleName.slice(0, -suffix.length));
    if (f?.type === "histogram") return f;
  }
  return undefined;
}

export function parseExposition(text: string): Map<string, ParsedFamily> {
  if (text !== "" && !text.endsWith("\n")) throw new Error("exposition must end with a newline");
  const families = new Map<string, ParsedFamily>();
  const series = new Set<string>();
  let current: ParsedFamily | undefined;
  for (const line of text.split("\n").slice(0, -1)) {
    const help = new RegExp(`^# HELP (${NAME}) (.*)$`).exec(line);
    const type = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line);
    if (help !== null) {
      const name = help[1] ?? "";
      if (families.has(name)) throw new Error(`family ${name} announced twice`);
      current = { name, help: unescapeHelp(help[2] ?? ""), type: "", samples: [] };
      families.set(name, current);
    } else if (type !== null) {
      if (current === undefined || current.name !== type[1] || current.type !== "") throw new Error(`TYPE ${type[1]} without its HELP just before`);
      current.type = type[2] ?? "";
    } else {
      const m = SAMPLE_RE.exec(line);
      if (m === null) throw new Error(`bad line: ${JSON.stringify(line)}`);
      const name = m[1] ?? "";
      const family = familyOf(name, families);
      if (family === undefined || family !== current) throw new Error(`sample ${name} outside its family`);
      const labels = m[2] === undefined ? {} : parseLabels(m[2]);
      const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
      if (series.has(key)) throw new Error(`series repeated: ${key}`);
      series.add(key);
      family.samples.push({ name, labels, value: parseValue(m[3] ?? "") });
    }
  }
  for (const f of families.values()) if (f.type === "histogram") checkHistogram(f);
  return families;
}

function checkHistogram(f: ParsedFamily): void {
  const groups = new Map<string, ParsedSample[]>();
  for (const s of f.samples) {
    const { le: _le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  for (const samples of groups.values()) {
    const buckets = samples.filter((s) => s.name.endsWith("_bucket"));
    const count = samples.find((s) => s.name.endsWith("_count"))?.value;
    if (buckets.length === 0 || count === undefined || !samples.some((s) => s.name.endsWith("_sum"))) throw new Error(`${f.name}: incomplete histogram`);
    let prevLe = -Infinity;
    let prev = 0;
    for (const b of buckets) {
      const le = parseValue(b.labels.le ?? "x");
      if (le <= prevLe || b.value < prev) throw new Error(`${f.name}: buckets not cumulative`);
      prevLe = le;
      prev = b.value;
    }
    if (prevLe !== Infinity || prev !== count) throw new Error(`${f.name}: last bucket must be +Inf = _count`);
  }
}
