#!/usr/bin/python3
"""Writes savez.npz, what numpy.savez (NumPy 1.24) makes of strings and
numbers, for npz_write_test.go: run with /usr/bin/python3 make_savez.py."""
import numpy as np

np.savez("savez.npz",
         paths=np.array(["cat/a.jpg", "dög/ß.png", ""]),
         big=np.array(["xy", "z"], dtype=">U2"),
         f=np.array([[1.5, -2], [0.25, 3e38]], dtype="<f4"),
         d=np.array([1e-300, -0.0, 2.5], dtype="<f8"),
         i=np.array([-3, 0, 1 << 40], dtype="<i8"))
