import { stringify } from "yaml";

/**
 * Kubernetes objects written out as a Helm template. Values that become
 * template expressions are first replaced by tokens (plain words, so the
 * YAML writer leaves them alone), the objects are written as YAML, every
 * `{{`/`}}` already in them (Prometheus and Grafana templates) is escaped for
 * Helm, and then the tokens are replaced: an inline token by its expression,
 * an entry token (`key: TOKEN` on a line of its own) by whatever lines it
 * stands for.
 */
export class TemplateText {
  private readonly inline = new Map<string, string>();
  private readonly entries = new Map<string, (indent: string, key: string) => string>();
  private count = 0;

  /** A token for a template expression inside a scalar: `{{ .Values.replicaCount }}`. */
  expression(expression: string): string {
    const token = `HELMVALUE${this.count++}X`;
    this.inline.set(token, expression);
    return token;
  }

  /**
   * A token for a whole mapping entry: the line `key: TOKEN` becomes what
   * `lines` returns for the entry's indentation and key.
   */
  entry(lines: (indent: string, key: string) => string): string {
    const token = `HELMENTRY${this.count++}X`;
    this.entries.set(token, lines);
    return token;
  }

  /** `value` as YAML lines at `indent`, escaped for Helm, tokens still in place. */
  yaml(value: unknown, indent: string): string {
    return escapeBraces(stringify(value, { lineWidth: 0 }))
      .trimEnd()
      .split("\n")
      .map((line) => `${indent}${line}`)
      .join("\n");
  }

  /** The documents, as the template file's text. */
  render(documents: readonly unknown[]): string {
    let text = documents.map((document) => `---\n${this.yaml(document, "")}\n`).join("");
    const entryLine = /^( *)([^\s:'"][^:\n]*): (HELMENTRY\d+X)$/m;
    for (let match = entryLine.exec(text); match; match = entryLine.exec(text)) {
      const [line, indent = "", key = "", token = ""] = match;
      const lines = this.entries.get(token);
      if (!lines) throw new Error(`${token} is not an entry token (${line.trim()})`);
      text = text.replace(line, lines(indent, key));
    }
    text = text.replace(/HELMVALUE\d+X/g, (token) => {
      const expression = this.inline.get(token);
      if (expression === undefined) throw new Error(`${token} left in the template`);
      return expression;
    });
    return text;
  }
}

/** Prometheus and Grafana use `{{ }}` too: Helm must print them, not run them. */
function escapeBraces(text: string): string {
  return text.replace(/\{\{|\}\}/g, (braces) => `{{ "${braces}" }}`);
}
