import { render } from 'preact';
import { AppShell } from './app-shell.tsx';
import { AuthGate } from './auth-gate.tsx';
// uPlot's own rules first, ours after them: Vite bundles both into the one stylesheet (no inline <style>).
import 'uplot/dist/uPlot.min.css';
import './styles.css';

render(
  <AuthGate>
    <AppShell />
  </AuthGate>,
  document.getElementById('app') as HTMLElement,
);
