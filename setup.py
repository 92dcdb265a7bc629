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

"""Install banditlearn_ros the ament_python way (colcon) or the pip way (no ROS installed)."""

from glob import glob
import os

from setuptools import find_packages, setup

package_name = 'banditlearn_ros'

# Extras for a machine without a ROS installation. On a robot rclpy and the message packages
# come from the ROS distribution (package.xml), so they are never install_requires.
ros_wheels = [
    'ros-rclpy', 'ros-rmw-fastrtps-cpp', 'ros-std-msgs', 'ros-sensor-msgs',
    'ros-std-srvs', 'ros-diagnostic-msgs', 'ros-rcl-interfaces', 'ros-ament-index-python',
]
vision = ['mediapipe==0.10.21', 'opencv-contrib-python==4.11.0.86', 'numpy<2']
bags = ['rosbags', 'mcap-ros2-support']
evaluation = ['scikit-learn', 'matplotlib', 'tqdm']
vowpal = ['vowpalwabbit']
# Optional compiled UCWL steps (learning/engine/ucwl_kernels.py) and the details JSON
# written by orjson (learning/protocol/details.py); without them numpy and json.dumps run.
fast = ['numba', 'orjson']
# The teaching page's web server (page_node): aiohttp serves the page and its WebSocket from
# one asyncio thread; its test drives the page in the system chromium through playwright.
page = ['aiohttp']
test = [
    'pytest', 'pytest-xdist', 'hypothesis', 'flake8', 'pydocstyle', 'catkin_pkg',
    'flake8-import-order', 'flake8-quotes', 'flake8-builtins', 'flake8-comprehensions',
    'ros-ament-flake8', 'ros-ament-pep257',
    'colcon-core', 'colcon-ros', 'colcon-python-setup-py', 'playwright',
]

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*']),
    # The teaching page's HTML, CSS and JS: served from the package, never from a CDN.
    package_data={'banditlearn_ros.page': ['static/*']},
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
        (os.path.join('share', package_name, 'launch'), glob('launch/*.launch.py')),
        (os.path.join('share', package_name, 'config'), glob('config/*.yaml')),
        (os.path.join('share', package_name, 'config'), glob('config/*.xml')),
        (os.path.join('share', package_name, 'config', 'datasets'),
         glob('config/datasets/*.yaml')),
        # The recorded sample session (banditlearn_bag sample) and its replay figures.
        (os.path.join('share', package_name, 'bags'), glob('bags/*.json')),
        (os.path.join('share', package_name, 'bags', 'sample_session'),
         glob('bags/sample_session/*')),
    ],
    install_requires=['setuptools', 'numpy', 'scipy', 'PyYAML'],
    extras_require={
        'ros': ros_wheels,
        'vision': vision,
        'bags': bags,
        'eval': evaluation,
        'vowpal': vowpal,
        'fast': fast,
        'page': page,
        'test': test,
        'all': ros_wheels + vision + bags + evaluation + vowpal + fast + page + test,
    },
    python_requires='>=3.10',
    zip_safe=True,
    maintainer='banditlearn_ros maintainers',
    maintainer_email='maintainers@banditlearn.invalid',
    description='Teach a robot hand gestures with yes/no feedback (UCWL online bandit learning).',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'learner_node = banditlearn_ros.nodes.learner_node:main',
            'teacher_node = banditlearn_ros.nodes.teacher_node:main',
            'dataset_node = banditlearn_ros.nodes.dataset_node:main',
            'camera_node = banditlearn_ros.nodes.camera_node:main',
            'feedback_node = banditlearn_ros.nodes.feedback_node:main',
            'gesture_show_node = banditlearn_ros.nodes.gesture_show_node:main',
            'face_show_node = banditlearn_ros.nodes.face_show_node:main',
            'page_node = banditlearn_ros.nodes.page_node:main',
            'image_source_node = banditlearn_ros.nodes.image_source_node:main',
            'banditlearn_bringup = banditlearn_ros.bringup.main:main',
            'banditlearn_evaluate = banditlearn_ros.tools.evaluate:main',
            'banditlearn_bag = banditlearn_ros.tools.bag:main',
            'bag_player = banditlearn_ros.nodes.bag_player:main',
            'banditlearn_render = banditlearn_ros.tools.render_dataset:main',
            'banditlearn_ctl = banditlearn_ros.tools.control:main',
        ],
    },
)
