# Copyright 2026 banditlearn_ros contributors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
The teaching page's web server: one page and one WebSocket, on one port, nothing else.

aiohttp (asyncio) in a thread of its own: a page costs a coroutine, not a thread, and an idle
server sleeps in the event loop's ``select`` (no polling). The page (``static/``: HTML, CSS
and JS of the package, no CDN: a robot's network is often offline) is served as one
document. Every page gets the state whenever it changes (``publish``, from any thread) and
sends its taps as JSON (``{"action": "answer" | "name", ...}``), each handed to
``on_action`` which returns the reply. Nothing else is reachable: no topic, no service, no
file.

Safe by default: it listens on localhost unless an address is named; on any other address
every request needs the random token the start-up URL carries (``access_token``); a
WebSocket opened by a page of another site (its Origin) is refused.
"""

import asyncio
import hmac
import ipaddress
import json
import os
import secrets
import threading
from typing import Any, Callable, Dict, Optional
from urllib.parse import quote, urlsplit

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'static')
"""The page's files, installed with the package (package_data)."""

MAX_MESSAGE = 4096
"""Largest message a page may send, in bytes (a tap is well under 200)."""

REFUSED = 'this page needs the link with its token, as the robot printed it'


def is_local(host: str) -> bool:
    """Return True for a loopback address or name (only this machine can connect)."""
    if host in ('localhost', 'localhost.localdomain'):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def access_token(host: str, token: str = '') -> str:
    """
    Return the token every request must carry: ``token`` if given, else random off localhost.

    Parameters
    ----------
    host : str
        The address listened on.
    token : str
        A chosen token ('' = none on localhost, a random one on any other address).

    Returns
    -------
    str
        '' when no token is needed.

    """
    if token:
        return token
    return '' if is_local(host) else secrets.token_urlsafe(16)


def page_document(token: str) -> bytes:
    """Return the page as one HTML document: its CSS and JS inlined (one request)."""
    def read(name: str) -> str:
        with open(os.path.join(STATIC, name), encoding='utf-8') as handle:
            return handle.read()
    html = read('index.html')
    html = html.replace('/*PAGE_CSS*/', read('page.css'))
    html = html.replace('/*PAGE_JS*/', read('page.js'))
    return html.replace('@TOKEN@', json.dumps(token)[1:-1]).encode('utf-8')


class PageServer:
    """
    Serve the page and its WebSocket on ``host:port`` in a thread; ``publish`` the state.

    Parameters
    ----------
    host, port : str, int
        Where to listen (port 0: a free one, ``port`` says which once started).
    token : str
        What every request must carry (``?token=``); '' = none.
    on_action : callable
        ``on_action(message: dict) -> dict``, run in the server's thread for each tap; the
        reply goes back to that page only.
    first_state : callable
        Returns the state's JSON text, sent to a page when it connects.

    """

    def __init__(self, host: str, port: int, token: str,
                 on_action: Callable[[Dict[str, Any]], Dict[str, Any]],
                 first_state: Callable[[], str]):
        self.host, self.port, self.token = host, int(port), token
        self._on_action, self._first_state = on_action, first_state
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._thread: Optional[threading.Thread] = None
        self._sockets: set = set()
        self._stopped: Optional[asyncio.Event] = None
        self._document = page_document(token)
        self.counts = {'pages_served': 0, 'pages_refused': 0, 'actions': 0,
                       'bad_messages': 0, 'action_errors': 0}

    @property
    def url(self) -> str:
        """Return the page's address (with its token)."""
        host = self.host if self.host not in ('0.0.0.0', '::', '') else _this_host()
        if ':' in host:
            host = f'[{host}]'
        tail = f'/?token={quote(self.token)}' if self.token else '/'
        return f'http://{host}:{self.port}{tail}'

    @property
    def pages(self) -> int:
        """Return the pages connected now."""
        return len(self._sockets)

    def start(self, timeout: float = 10.0) -> str:
        """Listen and serve in a thread; return the URL. OSError when the port is taken."""
        from aiohttp import web  # the node's configure reports a missing aiohttp
        ready = threading.Event()
        failure: list = []

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            app = web.Application()
            app.router.add_get('/', self._page)
            app.router.add_get('/ws', self._socket)
            runner = web.AppRunner(app, access_log=None, handle_signals=False)
            try:
                loop.run_until_complete(runner.setup())
                site = web.TCPSite(runner, self.host, self.port, reuse_address=True)
                loop.run_until_complete(site.start())
                self.port = int(runner.addresses[0][1])  # the free one, with port 0
            except Exception as exc:  # noqa: B902 - handed to start(), raised there
                failure.append(exc)
                ready.set()
                loop.run_until_complete(runner.cleanup())
                loop.close()
                return
            self._stopped = asyncio.Event()
            ready.set()
            loop.run_until_complete(self._stopped.wait())
            for ws in list(self._sockets):
                loop.run_until_complete(ws.close())
            loop.run_until_complete(runner.cleanup())
            loop.close()

        self._thread = threading.Thread(target=serve, name='page_server', daemon=True)
        self._thread.start()
        if not ready.wait(timeout):
            raise OSError(f'the page server did not start within {timeout:g} s')
        if failure:
            self._thread.join()
            exc = failure[0]
            raise OSError(f'cannot listen on {self.host}:{self.port}: {exc}') from exc
        return self.url

    def stop(self, timeout: float = 5.0) -> None:
        """Close every page and stop listening (safe to call twice)."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if self._stopped is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._stopped.set)
        thread.join(timeout)
        self._loop = self._thread = None

    def publish(self, text: str) -> None:
        """Send ``text`` (the state) to every page; from any thread."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._send_all, text)
        except RuntimeError:  # closed between the check and the call
            pass

    # -- inside the server's thread ----------------------------------------------------
    def _allowed(self, request) -> bool:
        if not self.token:
            return True
        given = request.query.get('token', '')
        return hmac.compare_digest(given.encode('utf-8'), self.token.encode('utf-8'))

    async def _page(self, request):
        from aiohttp import web
        if not self._allowed(request):
            self.counts['pages_refused'] += 1
            return web.Response(status=403, text=REFUSED)
        self.counts['pages_served'] += 1
        return web.Response(body=self._document, content_type='text/html',
                            charset='utf-8', headers={'Cache-Control': 'no-store'})

    async def _socket(self, request):
        from aiohttp import web, WSMsgType
        origin = request.headers.get('Origin')
        if not self._allowed(request) or (origin and urlsplit(origin).netloc != request.host):
            self.counts['pages_refused'] += 1
            return web.Response(status=403, text=REFUSED)
        ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE, heartbeat=30.0)
        await ws.prepare(request)
        self._sockets.add(ws)
        try:
            await ws.send_str(self._first_state())
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    continue
                reply = self._act(message.data)
                await ws.send_str(json.dumps(reply))
        finally:
            self._sockets.discard(ws)
        return ws

    def _act(self, text: str) -> Dict[str, Any]:
        try:
            message = json.loads(text)
            if not isinstance(message, dict):
                raise ValueError('not an object')
        except ValueError:
            self.counts['bad_messages'] += 1
            return {'type': 'reply', 'ok': False, 'message': 'unreadable message'}
        self.counts['actions'] += 1
        try:
            reply = self._on_action(message)
        except Exception as exc:  # noqa: B902 - a tap never ends the server or the node
            self.counts['action_errors'] += 1
            return {'type': 'reply', 'ok': False,
                    'message': f'not taken: {type(exc).__name__}: {exc}'[:200]}
        reply.setdefault('type', 'reply')
        if 'tag' in message:
            reply['tag'] = message['tag']
        return reply

    def _send_all(self, text: str) -> None:
        for ws in list(self._sockets):
            if not ws.closed:
                asyncio.ensure_future(_send(ws, text))


async def _send(ws, text: str) -> None:
    try:
        await ws.send_str(text)
    except (ConnectionError, RuntimeError):  # a page that went away meanwhile
        pass


def _this_host() -> str:
    """Return an address of this machine others can reach (for the printed URL)."""
    import socket
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(('192.0.2.1', 9))  # TEST-NET: no packet is sent by a UDP connect
        return probe.getsockname()[0]
    except OSError:
        return socket.gethostname()
    finally:
        probe.close()
