// yaml is loaded only when a file needs it (startup is most of a reconcile pass). As a CommonJS
// package inside the bundle, a dynamic import gives its exports under `default`.
export type Yaml = typeof import('yaml');

export async function loadYaml(): Promise<Yaml> {
  const m = (await import('yaml')) as Yaml & { default?: Yaml };
  return m.default ?? m;
}
