"""The voice pipeline's logic, with no audio I/O.

The clock-free state machine, endpointing, the wake gate, speech out sentence by sentence, the
speech-to-text vocabulary and the voice ports.
"""
