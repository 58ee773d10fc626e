/**
 * @module tests/e2e/rest-client
 * A typed slurmrestd client as a code generator would write it from the
 * OpenAPI document: request and response types are the document's shapes
 * (Infer<> of the schema values the document is generated from), and every
 * answer is also checked at run time against the document the server serves.
 */
import type { Infer } from "../../src/net/rest/schema.ts";
import type { JobDescMsg, JobInfoResp, JobPostResp, JobSubmitReq, JobSubmitResp, KillJobResp } from "../../src/net/rest/schemas-job.ts";
import type { NodesResp, PartitionsResp, PingResp } from "../../src/net/rest/schemas-cluster.ts";
import type { DbJobsResp } from "../../src/net/rest/schemas-slurmdb.ts";
import { check, responseSchema, type Doc } from "../unit/rest/openapi-check.ts";

export interface Answer<T> {
  status: number;
  body: T & { errors: { error?: string; error_number?: number; description?: string }[] };
}

export interface SlurmClient {
  ping(): Promise<Answer<Infer<typeof PingResp>>>;
  submit(req: Infer<typeof JobSubmitReq>): Promise<Answer<Infer<typeof JobSubmitResp>>>;
  jobs(): Promise<Answer<Infer<typeof JobInfoResp>>>;
  job(id: string): Promise<Answer<Infer<typeof JobInfoResp>>>;
  updateJob(id: string, desc: Infer<typeof JobDescMsg>): Promise<Answer<Infer<typeof JobPostResp>>>;
  cancelJob(id: string, signal?: string): Promise<Answer<Infer<typeof KillJobResp>>>;
  nodes(): Promise<Answer<Infer<typeof NodesResp>>>;
  partitions(): Promise<Answer<Infer<typeof PartitionsResp>>>;
  dbJob(id: string): Promise<Answer<Infer<typeof DbJobsResp>>>;
  /** Problems found checking answers against the served document (should stay empty). */
  problems: string[];
}

export async function createClient(baseUrl: string, headers: Record<string, string>, version = "v0.0.45"): Promise<SlurmClient> {
  const doc = (await (await fetch(`${baseUrl}/openapi/v3`)).json()) as Doc;
  const problems: string[] = [];
  async function call<T>(method: string, api: string, path: string, template: string, body?: unknown): Promise<Answer<T>> {
    const init: RequestInit = { method, headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const res = await fetch(`${baseUrl}/${api}/${version}/${path}`, init);
    const json = (await res.json()) as Answer<T>["body"];
    if (res.status === 200) problems.push(...check(doc, responseSchema(doc, `/${api}/${version}/${template}`, method.toLowerCase()), json).map((p) => `${method} ${path}: ${p}`));
    return { status: res.status, body: json };
  }
  return {
    problems,
    ping: () => call("GET", "slurm", "ping/", "ping/"),
    submit: (req) => call("POST", "slurm", "job/submit", "job/submit", req),
    jobs: () => call("GET", "slurm", "jobs/", "jobs/"),
    job: (id) => call("GET", "slurm", `job/${id}`, "job/{job_id}"),
    updateJob: (id, desc) => call("POST", "slurm", `job/${id}`, "job/{job_id}", desc),
    cancelJob: (id, signal) => call("DELETE", "slurm", `job/${id}${signal ? `?signal=${signal}` : ""}`, "job/{job_id}"),
    nodes: () => call("GET", "slurm", "nodes/", "nodes/"),
    partitions: () => call("GET", "slurm", "partitions/", "partitions/"),
    dbJob: (id) => call("GET", "slurmdb", `job/${id}`, "job/{job_id}"),
  };
}
