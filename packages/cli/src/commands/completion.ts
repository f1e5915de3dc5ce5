// `herald completion bash|zsh`: completes command and subcommand names (flags via --help).
import { ExitCode, usageError } from '../errors.js';
import { writeOut } from '../io.js';

/** The words that may follow each command path (the words typed so far, space-separated). */
const tree: Record<string, string> = {
  '': 'api login logout instance org config link unlink webhooks completion',
  instance: 'list use remove',
  org: 'use list',
  config: 'get set list',
  webhooks: 'subscribers deliveries events event-types retention trigger verify listen',
  'webhooks subscribers': 'list get create update delete recover recovery',
  'webhooks deliveries': 'list retry',
  'webhooks events': 'list get send redeliver',
  'webhooks event-types': 'list get export',
  'webhooks retention': 'get set',
  completion: 'bash zsh',
};

function bashScript(): string {
  const cases = Object.entries(tree)
    .map(([path, words]) => `    "${path}") words="${words}" ;;`)
    .join('\n');
  return `# herald bash completion: eval "$(herald completion bash)"
_herald() {
  local current=\${COMP_WORDS[COMP_CWORD]} path="" words="" index
  for ((index = 1; index < COMP_CWORD; index++)); do
    path="$path\${path:+ }\${COMP_WORDS[index]}"
  done
  case "$path" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$current"))
}
complete -F _herald herald
`;
}

export async function runCompletion(argv: readonly string[]): Promise<number> {
  const [shell, ...rest] = argv;
  if (shell === '--help' || shell === '-h') {
    await writeOut('Print a shell completion script.\n\nUSAGE\n  herald completion bash|zsh\n\nEXAMPLES\n  eval "$(herald completion bash)"\n  eval "$(herald completion zsh)"\n');
    return ExitCode.ok;
  }
  if ((shell !== 'bash' && shell !== 'zsh') || rest.length > 0) {
    throw usageError('UNKNOWN_SHELL', 'expected "bash" or "zsh"', "Run 'herald completion --help' for usage.");
  }
  // zsh runs bash completion functions through bashcompinit.
  await writeOut(shell === 'zsh' ? `autoload -U +X bashcompinit && bashcompinit\n${bashScript()}` : bashScript());
  return ExitCode.ok;
}
