/** `export NAME=value` lines for `eval "$(pn session open)"`, each value single-quoted for any POSIX shell. */
export class ShellExportFormatter {
  static line(name: string, value: string): string {
    return `export ${name}=${ShellExportFormatter.quote(value)}`;
  }

  /** `value` in single quotes, each `'` in it written `'\''`: nothing inside is expanded. */
  static quote(value: string): string {
    return `'${value.replace(/'/g, `'\\''`)}'`;
  }
}
