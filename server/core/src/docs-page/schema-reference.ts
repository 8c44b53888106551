// The schema reference of the /docs page, generated from the SDL: one section per type (Query first, then by
// name), with its fields, their arguments and deprecations, or its enum values.
import type { GraphQLArgument, GraphQLField, GraphQLInputField, GraphQLNamedType } from 'graphql';
import { graphql } from '../graphql-runtime.js';
import { esc, prose } from './html.js';

const { buildSchema, getNamedType, isEnumType, isInputObjectType, isObjectType, isScalarType } = graphql;

const BUILT_IN_SCALARS = ['String', 'Int', 'Boolean', 'ID', 'Float'];

export function renderSchemaReference(sdl: string): string {
  const types = Object.values(buildSchema(sdl).getTypeMap())
    .filter((t) => !t.name.startsWith('__') && !(isScalarType(t) && BUILT_IN_SCALARS.includes(t.name)))
    .sort((a, b) => (a.name === 'Query' ? -1 : b.name === 'Query' ? 1 : a.name.localeCompare(b.name)));
  return `<h2 id="reference">Schema reference</h2>${types.map(typeSection).join('\n')}`;
}

function typeSection(type: GraphQLNamedType): string {
  const kind = isObjectType(type) ? 'type' : isInputObjectType(type) ? 'input' : isEnumType(type) ? 'enum' : 'scalar';
  let body = '';
  if (isObjectType(type) || isInputObjectType(type)) {
    body = `<table><thead><tr><th>field</th><th>type</th><th>meaning</th></tr></thead><tbody>${fieldRows(Object.values(type.getFields()))}</tbody></table>`;
  } else if (isEnumType(type)) {
    body = `<table><tbody>${type.getValues().map((v) => `<tr><td><code>${esc(v.name)}</code></td><td>${prose(v.description)}</td></tr>`).join('')}</tbody></table>`;
  }
  return `<section class="type" id="type-${esc(type.name)}"><h3>${kind} ${esc(type.name)}</h3><p>${prose(type.description)}</p>${body}</section>`;
}

function fieldRows(fields: readonly (GraphQLField<unknown, unknown> | GraphQLInputField)[]): string {
  return fields
    .map((f) => {
      const args = 'args' in f && f.args.length > 0 ? `<ul class="args">${f.args.map((a: GraphQLArgument) => `<li><code>${esc(a.name)}</code>: ${typeLink(a.type)} — ${prose(a.description)}</li>`).join('')}</ul>` : '';
      const deprecated = 'deprecationReason' in f && f.deprecationReason ? ` <span class="deprecated">deprecated: ${prose(f.deprecationReason)}</span>` : '';
      return `<tr><td><code>${esc(f.name)}</code></td><td>${typeLink(f.type)}</td><td>${prose(f.description)}${deprecated}${args}</td></tr>`;
    })
    .join('');
}

function typeLink(type: { toString(): string }): string {
  const text = type.toString();
  const name = getNamedType(type as Parameters<typeof getNamedType>[0])?.name ?? text;
  return `<code>${esc(text).replace(esc(name), `<a href="#type-${esc(name)}">${esc(name)}</a>`)}</code>`;
}
