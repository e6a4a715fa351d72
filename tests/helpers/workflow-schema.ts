/**
 * A workflow file checked against GitHub's runner's own workflow schema, vendored from
 * actions/runner (tests/fixtures/github-workflow-schema/README.md names the commit), read by
 * GitHub's own reader of that format: @actions/workflow-parser (actions/languageservices; the
 * template reader of the Actions VS Code extension). The package bundles an older copy of the
 * schema; TemplateSchema.load takes ours instead. Its loader does not know the runner's
 * `coerce-raw` flag (on `workflow-name` and `on-new`: how the runner's evaluator coerces a raw
 * value, nothing that decides which keys or values are valid, actions/runner
 * src/Sdk/WorkflowParser/ObjectTemplating/Schema/TemplateSchema.cs), so that flag is dropped
 * before loading.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JSONObjectReader } from '@actions/workflow-parser/templates/json-object-reader';
import { TemplateSchema } from '@actions/workflow-parser/templates/schema/template-schema';
import { TemplateContext, TemplateValidationErrors } from '@actions/workflow-parser/templates/template-context';
import { readTemplate } from '@actions/workflow-parser/templates/template-reader';
import { NoOperationTraceWriter } from '@actions/workflow-parser/templates/trace-writer';
import { YamlObjectReader } from '@actions/workflow-parser/workflows/yaml-object-reader';
import { ROOT } from './infra.js';

/** The vendored schema (byte for byte as in actions/runner). */
export const RUNNER_WORKFLOW_SCHEMA = join(ROOT, 'tests', 'fixtures', 'github-workflow-schema', 'workflow-v1.0.json');

let loaded: TemplateSchema | undefined;

/** The runner's schema, loaded once (`coerce-raw` dropped, see above). */
function runnerSchema(): TemplateSchema {
  if (!loaded) {
    const json = JSON.parse(readFileSync(RUNNER_WORKFLOW_SCHEMA, 'utf8')) as { definitions: Record<string, object> };
    for (const definition of Object.values(json.definitions)) delete (definition as Record<string, unknown>)['coerce-raw'];
    loaded = TemplateSchema.load(new JSONObjectReader(undefined, JSON.stringify(json)));
  }
  return loaded;
}

/**
 * Reads a workflow file's text as `workflow-root` of the runner's schema: unknown or missing keys,
 * wrong value types, and expressions naming a context the place does not allow.
 * @returns the reader's error messages ('services.yaml (Line: 23, Col: 9): Unexpected value
 *   'commnd''), [] when the file is valid; YAML syntax errors come first
 */
export function workflowSchemaErrors(text: string, name = 'workflow.yml'): string[] {
  const context = new TemplateContext(new TemplateValidationErrors(), runnerSchema(), new NoOperationTraceWriter());
  const fileId = context.getFileId(name);
  const reader = new YamlObjectReader(fileId, text);
  if (reader.errors.length > 0) return reader.errors.map((e) => e.message);
  readTemplate(context, 'workflow-root', reader, fileId);
  return context.errors.getErrors().map((e) => e.message);
}
