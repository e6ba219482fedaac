"""What keeps an agent safe: policy, consent, host-path confinement, audit, the run_shell guard."""
