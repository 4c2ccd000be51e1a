"""Benchmarks: ``python -m dlgo.bench playouts|mcts|selfplay --size N`` print JSON."""
