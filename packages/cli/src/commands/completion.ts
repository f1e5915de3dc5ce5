// `herald completion bash|zsh`: completes command and subcommand names (flags via --help).
import { ExitCode, usageError } from '../errors.js';
import { writeOut } from '../io.js';

const tree: Record<string, string> = {
  '': 'api login logout instance org config link unlink webhooks completion',
  instance: 'list use remove',
  org: 'use list',
  config: 'get set list',
  webhooks: 'subscribers deliveries events verify',
  completion: 'bash zsh',
};

function bashScript(): string {
  const cases = Object.entries(tree)
    .filter(([command]) => command !== '')
    .map(([command, words]) => `    ${command}) words="${words}" ;;`)
    .join('\n');
  return `# herald bash completion: eval "$(herald completion bash)"
_herald() {
  local current=\${COMP_WORDS[COMP_CWORD]} words
  if [ "$COMP_CWORD" -eq 1 ]; then
    words="${tree['']}"
  elif [ "$COMP_CWORD" -eq 2 ]; then
    case "\${COMP_WORDS[1]}" in
${cases}
    esac
  fi
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
