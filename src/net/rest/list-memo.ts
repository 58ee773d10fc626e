/**
 * @module rest/list-memo
 * What spurrestd built from the controller's last full job list, kept under that list's
 * version (ListJobsResponse.list_version, ctld/list-jobs-fast.ts). The next GET /jobs sends the
 * version as known_list_version; while the controller answers list_unchanged, the kept
 * result is served as it is: no 4.7 MB list to fetch and parse, no 40 MiB to write again
 * (10k jobs). One list version at a time; under it, one result per `shape` (the REST
 * version and cluster name the bytes were written for). A list without a version (an older
 * controller) is never kept.
 */
export interface ListMemo<T> {
  /** The version of what is kept ("" = nothing). */
  version(): string;
  /** The result kept for `shape`, when the answer says the list is still the kept version. */
  get(answer: { listUnchanged?: boolean; listVersion?: string }, shape: string): T | undefined;
  /** Keep `value` for `shape` under `version` (a new version drops what the old one held). */
  put(version: string, shape: string, value: T): void;
}

/** `shapesMax`: results kept under one version (each REST version is its own text). */
export function createListMemo<T>(shapesMax = 4): ListMemo<T> {
  let version = "";
  let byShape = new Map<string, T>();
  return {
    version: () => version,
    get(answer, shape) {
      if (answer.listUnchanged !== true || answer.listVersion !== version || version === "") return undefined;
      return byShape.get(shape);
    },
    put(v, shape, value) {
      if (v === "") return;
      if (v !== version) {
        version = v;
        byShape = new Map();
      }
      if (byShape.size >= shapesMax && !byShape.has(shape)) return;
      byShape.set(shape, value);
    },
  };
}
