/*
 * Cyclomatic complexity of every function of a source tree, read with the TypeScript compiler's
 * parser: 1, plus one for each branch a function's own body takes (`if`, `?:`, `&&`, `||`, `??`
 * and their assignments, each `case`, `catch`, `for`, `for in`, `for of`, `while`, `do`). A nested
 * function counts on its own, not in the function around it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** One function and its complexity. */
export interface FunctionComplexity {
  /** `Class.method`, `function`, or the variable or property an arrow is assigned to. */
  readonly name: string;
  /** `path:line`, the path relative to the tree's root. */
  readonly at: string;
  readonly complexity: number;
}

const BRANCHES = new Set([
  ts.SyntaxKind.IfStatement,
  ts.SyntaxKind.ConditionalExpression,
  ts.SyntaxKind.CaseClause,
  ts.SyntaxKind.CatchClause,
  ts.SyntaxKind.ForStatement,
  ts.SyntaxKind.ForInStatement,
  ts.SyntaxKind.ForOfStatement,
  ts.SyntaxKind.WhileStatement,
  ts.SyntaxKind.DoStatement,
]);

const LOGICAL = new Set([
  ts.SyntaxKind.AmpersandAmpersandToken,
  ts.SyntaxKind.BarBarToken,
  ts.SyntaxKind.QuestionQuestionToken,
  ts.SyntaxKind.AmpersandAmpersandEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
]);

const isBranch = (node: ts.Node): boolean =>
  BRANCHES.has(node.kind) || (ts.isBinaryExpression(node) && LOGICAL.has(node.operatorToken.kind));

const isFunction = (node: ts.Node): node is ts.FunctionLikeDeclaration =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node);

/** 1 plus the branches of `fn`'s own body and parameters (defaults), nested functions left out. */
function complexityOf(fn: ts.FunctionLikeDeclaration): number {
  let count = 1;
  const visit = (node: ts.Node): void => {
    if (isBranch(node)) count += 1;
    if (!isFunction(node)) ts.forEachChild(node, visit);
  };
  ts.forEachChild(fn, visit);
  return count;
}

const textOf = (name: ts.Node | undefined, file: ts.SourceFile): string | undefined => name?.getText(file);

/** What a function is called: by its own name, its class's, or what it is assigned to. */
function nameOf(fn: ts.FunctionLikeDeclaration, file: ts.SourceFile): string {
  const own = textOf(fn.name, file) ?? (ts.isConstructorDeclaration(fn) ? 'constructor' : undefined);
  const parent = fn.parent;
  const holder = ts.isClassLike(parent) ? textOf(parent.name, file) : undefined;
  if (own !== undefined) return holder === undefined ? own : `${holder}.${own}`;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return textOf(parent.name, file)!;
  }
  return '(anonymous)';
}

/** Every function of one source text. */
export function functionComplexities(path: string, text: string): FunctionComplexity[] {
  const kind = path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const found: FunctionComplexity[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunction(node) && node.body !== undefined) {
      const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
      found.push({ name: nameOf(node, file), at: `${path}:${line}`, complexity: complexityOf(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : sources(path);
    return /\.tsx?$/.test(name) && !/\.(spec|d)\.tsx?$/.test(name) ? [path] : [];
  });
}

/** Every function of the tree under `root` (specs and declarations left out), paths relative to `base`. */
export function treeComplexities(root: string, base = '.'): FunctionComplexity[] {
  return sources(root).flatMap((path) => functionComplexities(relative(base, path), readFileSync(path, 'utf8')));
}
