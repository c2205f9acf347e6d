/*
 * Every write of a service goes through the command bus (issue 49): each public method of the
 * class (its base classes' too, followed through relative imports) is either named as a read (or
 * as another exception the caller lists) or sends a command with `this.commandBus.execute` and
 * touches no other member of `this`, so no write reaches a collaborator around its handler.
 * Read with the TypeScript compiler's parser; a method counts whether it is `async` or returns a
 * promise without the keyword, and getters are left out (they take nothing to write).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

/** One public method: its name, `path:line`, and the members of `this` its body touches. */
interface PublicMethod {
  readonly name: string;
  readonly at: string;
  /** `commandBus.execute` for a call to the bus, else the member's name (`sessions`, `loops`). */
  readonly touches: ReadonlySet<string>;
}

const BUS_CALL = 'commandBus.execute';

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

function isPublic(member: ts.ClassElement): boolean {
  if (member.name && ts.isPrivateIdentifier(member.name)) return false;
  const flags = ts.getCombinedModifierFlags(member as ts.Declaration);
  return (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) === 0;
}

/** What a body reads of `this`: `this.a.b(...)` as `a.b` when it is the bus call, else `a`. */
function thisMembers(body: ts.Node): Set<string> {
  const touched = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && node.expression.kind === ts.SyntaxKind.ThisKeyword) {
      const outer = node.parent;
      const viaBus =
        node.name.text === 'commandBus' &&
        ts.isPropertyAccessExpression(outer) &&
        outer.name.text === 'execute' &&
        ts.isCallExpression(outer.parent) &&
        outer.parent.expression === outer;
      touched.add(viaBus ? BUS_CALL : node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(body);
  return touched;
}

/** The file a relative import of `name` in `source` points at, or undefined (a package, say). */
function importedFrom(source: ts.SourceFile, name: string): string | undefined {
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings) || !bindings.elements.some((element) => element.name.text === name)) continue;
    const specifier = statement.moduleSpecifier.text;
    return specifier.startsWith('.') ? join(dirname(source.fileName), specifier.replace(/\.js$/, '.ts')) : undefined;
  }
  return undefined;
}

/** The public methods of `className` in `file` and of the base classes it extends, nearest first. */
export function publicMethods(root: string, file: string, className: string): PublicMethod[] {
  const source = parse(join(root, file));
  const declaration = source.statements.find(
    (statement): statement is ts.ClassDeclaration => ts.isClassDeclaration(statement) && statement.name?.text === className,
  );
  if (!declaration) throw new Error(`${file} declares no class ${className}`);
  const methods = declaration.members.filter(ts.isMethodDeclaration).flatMap((member) => {
    if (!isPublic(member) || !member.body) return [];
    const line = source.getLineAndCharacterOfPosition(member.getStart(source)).line + 1;
    return [{ name: member.name.getText(source), at: `${file}:${line}`, touches: thisMembers(member.body) }];
  });
  const base = declaration.heritageClauses
    ?.find((clause) => clause.token === ts.SyntaxKind.ExtendsKeyword)
    ?.types[0]?.expression.getText(source);
  const baseFile = base === undefined ? undefined : importedFrom(source, base);
  const inherited = base && baseFile ? publicMethods(root, relative(root, baseFile), base) : [];
  // An override hides the base's method of the same name.
  return [...methods, ...inherited.filter((method) => !methods.some((own) => own.name === method.name))];
}

/**
 * What breaks the rule in `className` of `file` (a path under `root`): `name (path:line): why`
 * for a public method that is not `allowed` and does not go through the bus alone, and a line
 * for each `allowed` name no public method has (a list that outlived its methods).
 */
export function writesOffTheBus(root: string, file: string, className: string, allowed: readonly string[]): string[] {
  const methods = publicMethods(root, file, className);
  const breaches = methods
    .filter((method) => !allowed.includes(method.name))
    .flatMap(({ name, at, touches }) => {
      if (!touches.has(BUS_CALL)) return [`${name} (${at}): not a listed read, and it calls no this.${BUS_CALL}`];
      const around = [...touches].filter((member) => member !== BUS_CALL);
      return around.length === 0 ? [] : [`${name} (${at}): calls this.${BUS_CALL} but also this.${around.join(', this.')}`];
    });
  const stale = allowed.filter((name) => !methods.some((method) => method.name === name));
  return [...breaches, ...stale.map((name) => `${name}: listed, but ${className} has no public method of that name`)];
}
