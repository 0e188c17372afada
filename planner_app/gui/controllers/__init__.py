"""The main window's controllers (issue 23): opening and saving (files), the dialogs it opens
(launchers), its actions and menus (menus). The window composes them and wires its signals to
them; each gets the session and a small host (host.py), never the window, and none imports
the window."""
