import { render } from 'preact';
import { AppShell } from './app-shell.tsx';
import './styles.css';

render(<AppShell />, document.getElementById('app') as HTMLElement);
