"""The Android model behind the commands: packages, screens, UI trees, images, logs, APKs."""
