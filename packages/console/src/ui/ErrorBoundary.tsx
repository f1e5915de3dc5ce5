// A screen that throws while rendering says so in words, with a way out, instead of leaving the
// page blank.
import { Component, type ComponentChildren } from 'preact';

interface State {
  error?: Error;
}

export class ErrorBoundary extends Component<{ resetKey: string; children: ComponentChildren }, State> {
  override state: State = {};

  static override getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidUpdate(previous: { resetKey: string }) {
    if (previous.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: undefined });
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <div class="notice notice-error" role="alert">
        <p class="notice-title">This screen failed to show</p>
        <p>{this.state.error.message}</p>
        <p>
          Go back, or <a href="#/subscribers">open the subscribers</a>. Reloading the page keeps you signed in.
        </p>
      </div>
    );
  }
}
