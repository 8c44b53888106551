import { render } from 'preact';
import { AppShell } from './app-shell.tsx';
import { AuthGate } from './auth-gate.tsx';
import './styles.css';

render(
  <AuthGate>
    <AppShell />
  </AuthGate>,
  document.getElementById('app') as HTMLElement,
);
