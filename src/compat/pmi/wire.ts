/**
 * @module compat/pmi/wire
 * The two PMI wire formats a task speaks on its PMI_FD socket (`srun --mpi=pmi2`), as MPICH's
 * simple PMI clients write them and Slurm's mpi/pmi2 plugin answers them:
 * - PMI-1: one line per message, `cmd=NAME key=value key=value\n` (space separated);
 * - PMI-2: a 6-character decimal length (left-aligned, space padded, as Slurm writes it) followed
 *   by that many bytes of `cmd=NAME;key=value;key=value;`.
 * Every connection starts in PMI-1 (`cmd=init pmi_version=N ...`); a client that asked for version 2
 * goes on in PMI-2 frames. `PmiReader` cuts a byte stream into messages. Pure: no I/O.
 */

export interface PmiMessage {
  cmd: string;
  attrs: Map<string, string>;
}

export type PmiWire = 1 | 2;

/** The longest message accepted (a PMI-1 value is at most 1024 bytes; PMI-2 lengths have 6 digits). */
export const PMI_MESSAGE_BYTES_MAX = 1_000_000;

/** Parse `cmd=NAME k=v k=v` (PMI-1, without the newline); undefined when it does not start with cmd=. */
export function parseV1(line: string): PmiMessage | undefined {
  const words = line.trim().split(/ +/).filter((w) => w !== "");
  const first = words[0] ?? "";
  if (!first.startsWith("cmd=") && !first.startsWith("mcmd=")) return undefined;
  const attrs = new Map<string, string>();
  for (const w of words.slice(1)) {
    const eq = w.indexOf("=");
    if (eq < 0) attrs.set(w, "");
    else attrs.set(w.slice(0, eq), w.slice(eq + 1));
  }
  return { cmd: first.slice(first.indexOf("=") + 1), attrs };
}

/** Parse the body of a PMI-2 frame (`cmd=NAME;k=v;...;`); undefined when it does not start with cmd=. */
export function parseV2(body: string): PmiMessage | undefined {
  if (!body.startsWith("cmd=")) return undefined;
  const parts = body.split(";").filter((p) => p !== "");
  const attrs = new Map<string, string>();
  for (const p of parts.slice(1)) {
    const eq = p.indexOf("=");
    if (eq < 0) attrs.set(p, "");
    else attrs.set(p.slice(0, eq), p.slice(eq + 1));
  }
  return { cmd: (parts[0] ?? "cmd=").slice(4), attrs };
}

/** A PMI-1 reply line: `cmd=NAME k=v ...\n`. */
export function formatV1(cmd: string, attrs: ReadonlyArray<readonly [string, string | number]>): string {
  return `cmd=${cmd}${attrs.map(([k, v]) => ` ${k}=${v}`).join("")}\n`;
}

/** A PMI-2 reply frame: the body's length in 6 left-aligned characters, then `cmd=NAME;k=v;...;`. */
export function formatV2(cmd: string, attrs: ReadonlyArray<readonly [string, string | number]>): string {
  const body = `cmd=${cmd};${attrs.map(([k, v]) => `${k}=${v};`).join("")}`;
  const length = String(new TextEncoder().encode(body).length);
  return `${length.padEnd(6, " ")}${body}`;
}

/**
 * Cuts one connection's bytes into messages. Starts in PMI-1 (lines); `useWire(2)` after the init
 * reply switches to PMI-2 frames. A message over PMI_MESSAGE_BYTES_MAX, or a frame whose length
 * is not a number, is an error (the connection is then closed by the caller).
 */
export class PmiReader {
  private buffer = "";
  private wire: PmiWire = 1;

  useWire(wire: PmiWire): void {
    this.wire = wire;
  }

  /** Append `text`; returns the whole messages it completes (and "error" once the stream is broken). */
  feed(text: string): Array<PmiMessage | "error"> {
    this.buffer += text;
    const out: Array<PmiMessage | "error"> = [];
    for (;;) {
      const next = this.wire === 1 ? this.nextLine() : this.nextFrame();
      if (next === undefined) break;
      out.push(next);
      if (next === "error") break;
    }
    if (this.buffer.length > PMI_MESSAGE_BYTES_MAX) out.push("error");
    return out;
  }

  private nextLine(): PmiMessage | "error" | undefined {
    const nl = this.buffer.indexOf("\n");
    if (nl < 0) return undefined;
    const line = this.buffer.slice(0, nl);
    this.buffer = this.buffer.slice(nl + 1);
    if (line.trim() === "") return this.nextLine();
    return parseV1(line) ?? "error";
  }

  private nextFrame(): PmiMessage | "error" | undefined {
    if (this.buffer.length < 6) return undefined;
    const length = Number(this.buffer.slice(0, 6).trim());
    if (!Number.isInteger(length) || length <= 0 || length > PMI_MESSAGE_BYTES_MAX) return "error";
    // lengths count bytes: the values PMI carries are ASCII (business cards, hostnames)
    if (this.buffer.length < 6 + length) return undefined;
    const body = this.buffer.slice(6, 6 + length);
    this.buffer = this.buffer.slice(6 + length);
    return parseV2(body) ?? "error";
  }
}
