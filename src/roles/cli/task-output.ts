/**
 * @module roles/cli/task-output
 * srun's side of `-o/-e`: each task's stdout/stderr chunks go to the target
 * compat/srun-io chose for it (this terminal, with `-l` labels; nowhere; or a
 * file, opened once per path, truncated unless --open-mode=append, shared by
 * the tasks whose pattern expands to the same name). The files are written
 * here, in srun's working directory, as the user who runs srun. Output goes
 * out in whole lines per task (compat/output-lines) unless `-u/--unbuffered`.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import type { StreamTarget } from "../../compat/srun-io.ts";
import { LineBuffer } from "../../compat/output-lines.ts";

export class LineLabeler {
  private partial = new Map<number, string>();
  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly width: number,
  ) {}
  write(task: number, chunk: string): void {
    const text = (this.partial.get(task) ?? "") + chunk;
    const lines = text.split("\n");
    this.partial.set(task, lines.pop() ?? "");
    for (const line of lines) this.out.write(`${String(task).padStart(this.width)}: ${line}\n`);
  }
  flush(task: number): void {
    const rest = this.partial.get(task);
    if (rest) this.out.write(`${String(task).padStart(this.width)}: ${rest}\n`);
    this.partial.delete(task);
  }
}

export class TaskOutput {
  private readonly fds = new Map<string, number>();
  private readonly decoder = new TextDecoder();
  private readonly outLabel: LineLabeler;
  private readonly errLabel: LineLabeler;
  /** Partial lines held per "task/stream" (not with -u, nor with -l, whose labeler holds them). */
  private readonly lines = new Map<string, LineBuffer>();
  constructor(
    private readonly targets: ReadonlyMap<number, { out: StreamTarget; err: StreamTarget }>,
    private readonly label: boolean,
    private readonly append: boolean,
    width: number,
    private readonly unbuffered = false,
  ) {
    this.outLabel = new LineLabeler(process.stdout, width);
    this.errLabel = new LineLabeler(process.stderr, width);
    // every file is opened (and so created or truncated) before any task runs, as Slurm's stepd does
    for (const t of targets.values()) for (const target of [t.out, t.err]) if (target.kind === "file") this.fdOf(target.path);
  }

  write(taskId: number, stream: "out" | "err", bytes: Uint8Array): void {
    const target = this.targets.get(taskId)?.[stream] ?? { kind: "terminal" };
    if (target.kind === "discard") return;
    if (this.unbuffered || (this.label && target.kind === "terminal")) return this.emit(taskId, stream, target, bytes);
    const key = `${taskId}/${stream}`;
    let buffer = this.lines.get(key);
    if (buffer === undefined) this.lines.set(key, (buffer = new LineBuffer()));
    const ready = buffer.push(bytes);
    if (ready.length > 0) this.emit(taskId, stream, target, ready);
  }

  private emit(taskId: number, stream: "out" | "err", target: StreamTarget, bytes: Uint8Array): void {
    if (target.kind === "file") {
      writeSync(this.fdOf(target.path), bytes);
      return;
    }
    const terminal = stream === "out" ? process.stdout : process.stderr;
    if (!this.label) return void terminal.write(bytes);
    const labeler = stream === "out" ? this.outLabel : this.errLabel;
    labeler.write(taskId, this.decoder.decode(bytes));
    // -u -l: every chunk is labelled as it comes, a partial line ended there (oracle: `printf a` gives "0: a")
    if (this.unbuffered) labeler.flush(taskId);
  }

  /** The task's output has ended: a labelled partial line is printed now. */
  ended(taskId: number): void {
    for (const stream of ["out", "err"] as const) {
      const rest = this.lines.get(`${taskId}/${stream}`)?.flush();
      this.lines.delete(`${taskId}/${stream}`);
      const target = this.targets.get(taskId)?.[stream] ?? { kind: "terminal" as const };
      if (rest !== undefined && rest.length > 0) this.emit(taskId, stream, target, rest);
    }
    this.outLabel.flush(taskId);
    this.errLabel.flush(taskId);
  }

  close(): void {
    // a node whose stream broke sent no ends: what its tasks printed last still comes out
    for (const taskId of new Set([...this.lines.keys()].map((k) => Number(k.split("/")[0])))) this.ended(taskId);
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }

  private fdOf(path: string): number {
    let fd = this.fds.get(path);
    if (fd === undefined) {
      fd = openSync(path, this.append ? "a" : "w", 0o644);
      this.fds.set(path, fd);
    }
    return fd;
  }
}
