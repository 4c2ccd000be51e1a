// The one bundle the page loads (window.Shudan): Preact's h/render and Shudan's Goban.
import {h, render} from 'preact'
import {Goban} from '@sabaki/shudan'

window.Shudan = {h, render, Goban}
