// A small JSON Schema checker for the keywords overnight's own schemas use (type, const, enum,
// required, properties, items, minimum, $ref to #/$defs): the tests validate result.json with it,
// without a validator package. Returns the problems, each with the path of the value.

type Schema = Record<string, unknown>;

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

const fits = (actual: string, want: string) => actual === want || (want === 'number' && actual === 'integer');

export function validate(schema: Schema, value: unknown, root: Schema = schema, at = '$'): string[] {
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const name = ref.replace('#/$defs/', '');
    const defs = root.$defs as Record<string, Schema>;
    if (!defs?.[name]) return [`${at}: unknown $ref ${ref}`];
    return validate(defs[name], value, root, at);
  }
  const problems: string[] = [];
  const actual = typeOf(value);
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((t) => fits(actual, t))) return [`${at}: ${actual}, expected ${types.join(' or ')}`];
  }
  if ('const' in schema && value !== schema.const) problems.push(`${at}: expected ${String(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    problems.push(`${at}: ${JSON.stringify(value)} is not one of ${schema.enum.join(', ')}`);
  if (typeof schema.minimum === 'number' && typeof value === 'number' && value < schema.minimum)
    problems.push(`${at}: below ${schema.minimum}`);
  if (actual === 'object') {
    const obj = value as Record<string, unknown>;
    for (const key of (schema.required as string[] | undefined) ?? [])
      if (!(key in obj)) problems.push(`${at}: ${key} is missing`);
    const props = (schema.properties as Record<string, Schema> | undefined) ?? {};
    for (const [key, sub] of Object.entries(props))
      if (key in obj) problems.push(...validate(sub, obj[key], root, `${at}.${key}`));
  }
  if (actual === 'array' && schema.items)
    (value as unknown[]).forEach((v, i) =>
      problems.push(...validate(schema.items as Schema, v, root, `${at}[${i}]`)),
    );
  return problems;
}
