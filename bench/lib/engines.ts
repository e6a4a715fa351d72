/**
 * The benchmark on the second Docker engine (testkit/engines.ts): section 1 measures the
 * Docker-mode start on both; each variant runs with DOCKER_HOST switched for its whole
 * measurement (the project's code and the docker CLI read it per call, and the benchmark
 * measures one variant at a time).
 */
import { withDockerHost } from '../../testkit/engines.js';
import type { Variant } from './timed.js';

/** `variant` measured on the engine at `host`: key `<key>-engine29`, label with `(engine)`. */
export function onEngine(variant: Variant, host: string, engine: string): Variant {
  return {
    key: `${variant.key}-engine29`,
    label: `${variant.label} (${engine})`,
    measure: (rep) => withDockerHost(host, () => variant.measure(rep)),
  };
}
