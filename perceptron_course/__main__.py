"""``python -m perceptron_course NOTEBOOK.ipynb``: the same check as the ``perceptron-check`` command."""

from .check import console_main

if __name__ == "__main__":
    console_main()
