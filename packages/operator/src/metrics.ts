// Operator metrics in Prometheus text format (no dependency: a handful of counters and gauges).

type Labels = Record<string, string>;

function labelText(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  return `{${entries.map(([key, value]) => `${key}="${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

interface Family {
  help: string;
  type: 'counter' | 'gauge';
  values: Map<string, { labels: Labels; value: number }>;
}

export class Metrics {
  private readonly families = new Map<string, Family>();
  private readonly gauges = new Map<string, { help: string; read: () => number }>();

  increment(name: string, help: string, labels: Labels = {}, by = 1): void {
    const family = this.family(name, help, 'counter');
    const key = labelText(labels);
    const entry = family.values.get(key) ?? { labels, value: 0 };
    entry.value += by;
    family.values.set(key, entry);
  }

  /** A gauge read when scraped. */
  gauge(name: string, help: string, read: () => number): void {
    this.gauges.set(name, { help, read });
  }

  render(): string {
    const lines: string[] = [];
    for (const [name, family] of this.families) {
      lines.push(`# HELP ${name} ${family.help}`, `# TYPE ${name} ${family.type}`);
      for (const { labels, value } of family.values.values()) lines.push(`${name}${labelText(labels)} ${value}`);
    }
    for (const [name, gauge] of this.gauges) {
      lines.push(`# HELP ${name} ${gauge.help}`, `# TYPE ${name} gauge`, `${name} ${gauge.read()}`);
    }
    return `${lines.join('\n')}\n`;
  }

  private family(name: string, help: string, type: Family['type']): Family {
    let family = this.families.get(name);
    if (!family) {
      family = { help, type, values: new Map() };
      this.families.set(name, family);
    }
    return family;
  }
}
