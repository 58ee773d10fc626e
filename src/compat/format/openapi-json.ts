/**
 * @module format/openapi-json
 * The text form of `squeue --json` / `sinfo --json` in Slurm 22.05 (openapi
 * v0.0.38, printed by json-c): two-space indent, empty arrays as "[" newline
 * "]", "/" escaped as "\/", doubles always with a fraction ("2.0"), and no
 * trailing newline (goldens 012, 014, 055). Plus the shared "meta" block.
 */

/** A number json-c prints as a double (always with a decimal point). */
export class JsonDouble {
  constructor(readonly value: number) {}
}

export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonDouble
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/** The Slurm release Spur's JSON and --version imitate (the oracle's). */
export const SLURM_COMPAT_RELEASE = { major: 22, minor: 5, micro: 8, release: "22.05.8" } as const;

/** `--version` line of the Slurm commands: the release Spur follows (compat/slurm-release). */
export { SLURM_VERSION_LINE } from "../slurm-release.ts";

/** The "meta" object every 22.05 JSON dump starts with. */
export function openapiMeta(): JsonValue {
  return {
    plugin: { type: "openapi/v0.0.38", name: "Slurm OpenAPI v0.0.38" },
    Slurm: {
      version: {
        major: SLURM_COMPAT_RELEASE.major,
        micro: SLURM_COMPAT_RELEASE.micro,
        minor: SLURM_COMPAT_RELEASE.minor,
      },
      release: SLURM_COMPAT_RELEASE.release,
    },
  };
}

function escapeString(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "/") out += "\\/";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (code < 0x20) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

function doubleText(value: number): string {
  if (!Number.isFinite(value)) return "null";
  const text = String(value);
  return /[.eE]/.test(text) ? text : `${text}.0`;
}

function writeValue(value: JsonValue, indent: string): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return Number.isFinite(value) ? String(Math.trunc(value)) : "null";
  if (typeof value === "string") return escapeString(value);
  if (value instanceof JsonDouble) return doubleText(value.value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    const items = (value as readonly JsonValue[]).map((v) => `${inner}${writeValue(v, inner)}`);
    return items.length === 0 ? `[\n${indent}]` : `[\n${items.join(",\n")}\n${indent}]`;
  }
  const entries = Object.entries(value as { readonly [key: string]: JsonValue });
  const lines = entries.map(([k, v]) => `${inner}${escapeString(k)}: ${writeValue(v, inner)}`);
  return lines.length === 0 ? `{\n${indent}}` : `{\n${lines.join(",\n")}\n${indent}}`;
}

/** The whole document, without a trailing newline. */
export const writeOpenapiJson = (value: JsonValue): string => writeValue(value, "");
