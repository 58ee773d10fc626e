/**
 * @module rest/openapi
 * The OpenAPI 3.0 document served at /openapi/v3 (and /openapi.json,
 * /openapi), generated from the route tables and the schema values the
 * handlers are typed by: one source of truth. Component names follow
 * slurmrestd's (`v0.0.45_job_info`), one set per served version.
 */
import { hasVersion, type Node } from "./schema.ts";
import type { Route } from "./route.ts";
import { pathParams } from "./route.ts";
import { boundIn, VERSIONS, type Version } from "./versions.ts";
import { SPUR_VERSION } from "../../version.ts";
import { CLI_ONLY_SCHEMAS } from "./schemas-sinfo.ts";

type Json = Record<string, unknown>;

function schemaOf(node: Node, version: Version, components: Json): Json {
  switch (node.kind) {
    case "named": {
      const name = `${version}_${node.name}`;
      if (!(name in components)) {
        components[name] = {};
        components[name] = schemaOf(node.target, version, components);
      }
      return { $ref: `#/components/schemas/${name}` };
    }
    case "string":
      return node.enum === undefined ? { type: "string", maxLength: node.maxLength } : { type: "string", enum: [...node.enum] };
    case "integer":
      return { type: "integer", format: node.format };
    case "number":
      return { type: "number", format: "double" };
    case "boolean":
      return { type: "boolean" };
    case "array":
      return { type: "array", items: schemaOf(node.items, version, components), maxItems: node.maxItems };
    case "object": {
      if (node.free === true) return { type: "object", additionalProperties: { type: "string" } };
      const properties: Json = {};
      const minor = Number(version.slice(5));
      for (const [k, v] of Object.entries(node.props)) if (hasVersion(v, minor)) properties[k] = schemaOf(v, version, components);
      return { type: "object", properties, required: [...node.required] };
    }
  }
}

const json = (schema: Json) => ({ "application/json": { schema } });

function operation(route: Route, version: Version, components: Json): Json {
  const op = `${route.api}_${version.replace(/\./g, "")}_${route.operation}`;
  const parameters = [
    ...pathParams(route.path).map((name) => ({ in: "path", name, required: true, schema: { type: "string" } })),
    ...(route.query ?? []).map((name) => ({ in: "query", name, required: false, schema: { type: "string" } })),
  ];
  const response = schemaOf(route.response.node, version, components);
  return {
    tags: [route.api],
    summary: route.summary,
    operationId: op,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body === undefined ? {} : { requestBody: { required: true, content: json(schemaOf(route.body.node, version, components)) } }),
    responses: {
      "200": { description: route.summary, content: json(response) },
      default: { description: "error", content: json(response) },
    },
  };
}

export function openapiDocument(routes: readonly Route[]): Json {
  const paths: Record<string, Json> = {};
  const components: Json = {};
  for (const version of VERSIONS) {
    for (const r of routes) {
      if (!boundIn(version, r.since, r.until)) continue;
      const path = `/${r.api}/${version}/${r.path}`;
      paths[path] ??= {};
      (paths[path] as Json)[r.method] = operation(r, version, components);
    }
    for (const s of CLI_ONLY_SCHEMAS) schemaOf(s.node, version, components);
  }
  return {
    openapi: "3.0.3",
    info: { title: "Spur REST API (slurmrestd compatible)", version: SPUR_VERSION, description: "slurmrestd's data_parser v0.0.42 to v0.0.45, served by spurrestd" },
    tags: [{ name: "slurm" }, { name: "slurmdb" }, { name: "util" }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        user: { type: "apiKey", in: "header", name: "X-SLURM-USER-NAME" },
        token: { type: "apiKey", in: "header", name: "X-SLURM-USER-TOKEN" },
        bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
      },
    },
    security: [{ token: [] }, { user: [], token: [] }, { bearerAuth: [] }],
  };
}
