/**
 * @module raft/snapshot-peers
 * The controllers' addresses ride along with each Raft snapshot, so a replica that joins
 * from a snapshot (the membership changes that carried them were compacted away) still learns
 * every member's address. Layout: a magic line, one JSON line `{id: "HOST:PORT:RAFTPORT"}`,
 * then the application's image unchanged. An image without the magic (written before this
 * existed, or an SQLite file, which starts with "SQLite format 3") is taken as is.
 */
const MAGIC = "SPUR-RAFT-PEERS-1\n";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function wrapSnapshot(addresses: ReadonlyMap<number, string>, image: Uint8Array): Uint8Array {
  const head = encoder.encode(`${MAGIC}${JSON.stringify(Object.fromEntries(addresses))}\n`);
  const out = new Uint8Array(head.length + image.length);
  out.set(head, 0);
  out.set(image, head.length);
  return out;
}

export function unwrapSnapshot(data: Uint8Array): { addresses: Map<number, string>; image: Uint8Array } {
  const magic = encoder.encode(MAGIC);
  const hasMagic = data.length >= magic.length && magic.every((b, i) => data[i] === b);
  if (!hasMagic) return { addresses: new Map(), image: data };
  const end = data.indexOf(10, magic.length);
  if (end < 0) throw new Error("snapshot peer header has no end");
  const parsed = JSON.parse(decoder.decode(data.subarray(magic.length, end))) as Record<string, unknown>;
  const addresses = new Map<number, string>();
  for (const [id, addr] of Object.entries(parsed)) if (Number(id) > 0 && typeof addr === "string") addresses.set(Number(id), addr);
  // A copy: the SQLite image is deserialized from its own buffer, not a view into this one.
  return { addresses, image: data.slice(end + 1) };
}
