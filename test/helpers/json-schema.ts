// A validator for the subset of JSON Schema draft-07 that our schemas use. Tests use it to hold the
// shipped schemas and the real outputs to each other.
type Schema = Record<string, unknown>;

export function validate(value: unknown, schema: Schema, root: Schema = schema, path = '$'): string[] {
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((o, k) => (o as Schema)[k], root);
    return validate(value, target as Schema, root, path);
  }
  const errors: string[] = [];
  const types = schema.type === undefined ? undefined : ([] as unknown[]).concat(schema.type);
  if (types && !types.some((t) => typeOk(value, t as string)))
    return [`${path}: expected ${types.join('|')}, got ${JSON.stringify(value)?.slice(0, 40)}`];
  if (schema.enum && !(schema.enum as unknown[]).includes(value))
    errors.push(`${path}: ${JSON.stringify(value)} not in enum`);
  if (schema.const !== undefined && schema.const !== value)
    errors.push(`${path}: expected const ${JSON.stringify(schema.const)}`);
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum)
      errors.push(`${path}: ${value} < minimum ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum)
      errors.push(`${path}: ${value} > maximum ${schema.maximum}`);
  }
  if (typeof value === 'string' && typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(value))
    errors.push(`${path}: "${value}" does not match ${schema.pattern}`);
  if (Array.isArray(value)) {
    if (schema.items)
      value.forEach((v, i) => errors.push(...validate(v, schema.items as Schema, root, `${path}[${i}]`)));
    if (typeof schema.minItems === 'number' && value.length < schema.minItems)
      errors.push(`${path}: fewer than ${schema.minItems} items`);
  } else if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    for (const k of (schema.required ?? []) as string[])
      if (!(k in obj)) errors.push(`${path}: missing required "${k}"`);
    for (const [k, v] of Object.entries(obj)) {
      if (props[k]) errors.push(...validate(v, props[k], root, `${path}.${k}`));
      else if (schema.additionalProperties === false) errors.push(`${path}: unexpected property "${k}"`);
      else if (typeof schema.additionalProperties === 'object')
        errors.push(...validate(v, schema.additionalProperties as Schema, root, `${path}.${k}`));
    }
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const list = schema[key] as Schema[] | undefined;
    if (!list) continue;
    const passing = list.filter((s) => validate(value, s, root, path).length === 0).length;
    if (key === 'oneOf' ? passing !== 1 : passing === 0)
      errors.push(`${path}: matches ${passing} of the ${key} branches`);
  }
  if (Array.isArray(schema.allOf))
    for (const s of schema.allOf as Schema[]) errors.push(...validate(value, s, root, path));
  return errors;
}

function typeOk(v: unknown, t: string): boolean {
  switch (t) {
    case 'null':
      return v === null;
    case 'array':
      return Array.isArray(v);
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'integer':
      return Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    default:
      return typeof v === t;
  }
}
