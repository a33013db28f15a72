"""The voice pipeline's logic, with no audio I/O.

The clock-free state machine, endpointing, the wake gate and the scans of ARIA's own speech,
the answer to a command (transcribe, run the turn, speak the reply sentence by sentence), the
speech-to-text vocabulary and the voice ports.
"""
