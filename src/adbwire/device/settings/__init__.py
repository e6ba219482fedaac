"""Device settings a test sets up, each verified by reading it back, and the ledger that
puts them back when the session that changed them ends.

- ``orientation``: lock the rotation or hand it to the sensor;
- ``appearance``: dark mode, font scale;
- ``locale``: an app's own language (Android 13+);
- ``network``: Wi-Fi and mobile data;
- ``values``: ``settings get/put/delete`` with unset kept apart, and bounded read-back;
- ``ledger``: what to restore, per device and setting, shared by the sessions that changed it.
"""
