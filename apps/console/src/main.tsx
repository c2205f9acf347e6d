import { render } from 'preact';
import { ConsoleApp } from './console-app.js';
import './console.css';

render(<ConsoleApp />, document.getElementById('app')!);
