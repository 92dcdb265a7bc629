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
What a file or a peer declares costs: each case in a process of its own, its peak RSS.

1. Model files whose header declares a huge ``n_features`` (2 kB files; diagonal and
   ``covariance: full``).
2. A model file whose one deflated member of 0.87 MB inflates to 896 MB.
3. A model file of 2 labels x 2^21 features stored uncompressed (two 32 MiB arrays): peak RSS over
   that of the interpreter with numpy loaded.
4. The never-taught check switched on, 12 labels, 12 vectors of 4096 values each answered
   "yes", then saved: peak RSS and the model file's size.
5. 30 refused parameter changes of a 10 MB string: lines and bytes logged (rclpy).

``--python`` runs the cases with another interpreter (a checkout of the code before, for a
ratio measured in the same run):

    nice -n 5 .venv/bin/python benchmarks/bench_bounds.py [--python OTHER/.venv/bin/python]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap

PEAK = textwrap.dedent("""
    import resource
    print(f'PEAK {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}')
""")

HEADER = textwrap.dedent("""
    import io, json, sys, zipfile
    import numpy as np
    from banditlearn_ros.learning import load_model, make_learner, save_model
    path, n, covariance = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    save_model(make_learner('ucwl', ['a', 'b'], 3, covariance=covariance), path)
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    header = json.loads(np.load(io.BytesIO(members['__header__.npy'])).tobytes())
    header['n_features'] = n
    buffer = io.BytesIO()
    np.save(buffer, np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))
    members['__header__.npy'] = buffer.getvalue()
    with zipfile.ZipFile(path, 'w') as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    try:
        load_model(path)
        print('OUTCOME read')
    except Exception as exc:
        print('OUTCOME', type(exc).__name__, str(exc).split(': ', 1)[-1][:90])
""")

DEFLATED = textwrap.dedent("""
    import os, sys, zipfile
    import numpy as np
    from banditlearn_ros.learning.storage import persistence
    path, n = sys.argv[1], 112_000_000
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as archive:
        with archive.open('mu.npy', 'w', force_zip64=True) as member:
            np.lib.format.write_array_header_1_0(
                member, {'descr': '<f8', 'fortran_order': False, 'shape': (n,)})
            chunk = bytes(2 ** 24)
            for _ in range(n * 8 // len(chunk)):
                member.write(chunk)
            member.write(bytes(n * 8 % len(chunk)))
    print(f'SIZE {os.path.getsize(path) / 1e6:.2f}')
    try:
        persistence.read_model_state(path)
        print('OUTCOME read')
    except Exception as exc:
        print('OUTCOME', type(exc).__name__, str(exc).split(': ', 1)[-1][:90])
""")

STORED = textwrap.dedent("""
    import resource, sys
    import numpy
    from banditlearn_ros.learning import make_learner, save_model
    from banditlearn_ros.learning.storage import persistence
    if sys.argv[2] == 'save':
        save_model(make_learner('ucwl', ['a', 'b'], 2 ** 21), sys.argv[1])
        raise SystemExit
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    state = persistence.read_model_state(sys.argv[1])
    print(f'BASE {base:.0f}')
    print('OUTCOME read', sum(a.nbytes for a in state['arrays'].values()) // 2 ** 20, 'MiB')
""")

OPEN_SET = textwrap.dedent("""
    import os, sys
    import numpy as np
    from banditlearn_ros.learning.live import learner_parameters as lp
    from banditlearn_ros.learning.live.live_learner import LiveLearner
    values = {s.name: s.default for s in lp.all_specs()}
    values.update(labels=[f'g{i}' for i in range(12)], unknown_rejection=True,
                  autosave_every=0)
    class Log:
        def info(self, text, **kwargs):
            pass
        warning = error = info
    state = LiveLearner(values.__getitem__, sys.argv[1], Log())
    rng = np.random.default_rng(0)
    for _ in range(12):
        item, reason, _ = state.predict(rng.normal(size=4096).tolist())
        if item is None:
            print('OUTCOME refused', reason)
            break
        state.feedback(True)
    else:
        state.save()
        print(f'OUTCOME saved, file {os.path.getsize(sys.argv[1]) / 1e6:.1f} MB')
""")

REFUSALS = textwrap.dedent("""
    import os, sys
    import rclpy
    from rclpy.node import Node
    from rclpy.parameter import Parameter
    from banditlearn_ros.learning.live import learner_parameters as lp
    from banditlearn_ros.nodes import parameters
    rclpy.init()
    node = Node('bench_bounds')
    parameters.declare_specs(node, lp.all_specs())
    huge = 'x' * 10 ** 7
    refused = sum(not node.set_parameters([Parameter('k', Parameter.Type.STRING, huge)])[0]
                  .successful for _ in range(30))
    node.destroy_node()
    rclpy.shutdown()
    print('OUTCOME', refused, 'of 30 refused')
""")


def run(python: str, code: str, *args: str) -> dict:
    """Run one case; return its OUTCOME, PEAK (MB), other tagged lines and stderr size."""
    env = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST',
               ROS_DOMAIN_ID=os.environ.get('ROS_DOMAIN_ID', '152'))
    done = subprocess.run([python, '-c', code + PEAK, *args], capture_output=True,
                          text=True, cwd=tempfile.gettempdir(), env=env, timeout=900)
    out = {'stderr_lines': len(done.stderr.splitlines()), 'stderr_bytes': len(done.stderr),
           'rc': done.returncode}
    for line in done.stdout.splitlines():
        tag, _, rest = line.partition(' ')
        out[tag] = rest
    if done.returncode and 'OUTCOME' not in out:
        out['OUTCOME'] = 'crashed: ' + (done.stderr.strip().splitlines() or ['?'])[-1][:90]
    return out


def main() -> None:
    """Run every case and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--python', default=sys.executable)
    python = parser.parse_args().python
    folder = tempfile.mkdtemp(prefix='bench_bounds-')
    path = os.path.join(folder, 'model.npz')
    fresh = os.path.join(folder, 'never_taught.npz')
    print(f'interpreter {python}; load {os.getloadavg()[0]:.1f}')
    for n, covariance in ((10 ** 8, 'diag'), (15000, 'full'), (10 ** 6, 'full')):
        r = run(python, HEADER, path, str(n), covariance)
        print(f'header n_features={n} ({covariance}): peak RSS {r.get("PEAK")} MB; '
              f'{r.get("OUTCOME")}')
    r = run(python, DEFLATED, path)
    print(f'deflated member of {r.get("SIZE")} MB inflating to 896 MB: peak RSS '
          f'{r.get("PEAK")} MB; {r.get("OUTCOME")}')
    run(python, STORED, path, 'save')
    r = run(python, STORED, path, 'read')
    print(f'stored model of 2 x 32 MiB arrays: peak RSS {r.get("PEAK")} MB after '
          f'{r.get("BASE")} MB before reading; {r.get("OUTCOME")}')
    r = run(python, OPEN_SET, fresh)
    print(f'never-taught check, 12 labels x 4096 features, 12 yes: peak RSS {r.get("PEAK")} '
          f'MB; {r.get("OUTCOME")}')
    r = run(python, REFUSALS)
    print(f'30 refusals of a 10 MB value: {r["stderr_lines"]} log lines, '
          f'{r["stderr_bytes"] / 1e6:.2f} MB logged; peak RSS {r.get("PEAK")} MB; '
          f'{r.get("OUTCOME")}')
    for name in os.listdir(folder):
        os.unlink(os.path.join(folder, name))
    os.rmdir(folder)


if __name__ == '__main__':
    main()
