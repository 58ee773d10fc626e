/**
 * @module rest/write-parts
 * Writes a big body (GET jobs/ with 10k jobs is ~42 MiB in one kept buffer, raw-json.ts) to
 * a node:http response in slices of at most `SLICE_BYTES`, waiting for 'drain' whenever the
 * socket is full. One write of the whole buffer makes Bun's node:http (1.4.5) copy what the
 * socket does not take at once, up to the whole 42 MiB, into memory of its own, fresh for a
 * new listing: on this project's VMs each 4 KiB page of it costs ~11 us to fault in (about
 * 120 ms per 42 MiB), more than the write itself. Slices that wait for 'drain' leave at most
 * one slice to copy, and that memory is reused from answer to answer.
 * A client that goes away stops the writing (the rest of the parts is never written).
 */

/** At most this much is handed to the socket per write (a bare node:http test: 4 and 16 MiB alike, 1 MiB and 256 KiB no better; not tuned further). */
export const SLICE_BYTES = 4 << 20;

/** The part of a ServerResponse this writer uses (a fake one in tests). */
export interface PartsSink {
  write(chunk: Uint8Array): boolean;
  end(): void;
  once(event: "drain" | "close", listener: () => void): unknown;
  removeListener(event: "drain" | "close", listener: () => void): unknown;
  readonly destroyed: boolean;
}

/** Resolves once every part is written and the body ended, or once the sink is closed. */
export async function writeParts(sink: PartsSink, parts: readonly Uint8Array[], sliceBytes = SLICE_BYTES): Promise<void> {
  if (!(sliceBytes > 0)) throw new Error(`writeParts: slice size ${sliceBytes} is not positive`);
  for (const part of parts) {
    for (let offset = 0; offset < part.byteLength; offset += sliceBytes) {
      if (sink.destroyed) return;
      const slice = offset === 0 && part.byteLength <= sliceBytes ? part : part.subarray(offset, offset + sliceBytes);
      if (!sink.write(slice) && !(await drained(sink))) return;
    }
  }
  if (!sink.destroyed) sink.end();
}

/** True on 'drain', false when the sink closes first. */
function drained(sink: PartsSink): Promise<boolean> {
  return new Promise((resolve) => {
    const onDrain = () => {
      sink.removeListener("close", onClose);
      resolve(true);
    };
    const onClose = () => {
      sink.removeListener("drain", onDrain);
      resolve(false);
    };
    sink.once("drain", onDrain);
    sink.once("close", onClose);
  });
}
