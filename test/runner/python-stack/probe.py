# Reads its own stacks through the capture library's reader (native/capture/check/python_stack_check.cc)
# at lines that test/runner/python-stack.test.ts names by hand. ctypes.CDLL releases the GIL around
# a call and ctypes.PyDLL keeps it: the reader must work either way, and in every thread.
import ctypes
import gc
import json
import sys
import threading

released = ctypes.CDLL(sys.argv[1])
held = ctypes.PyDLL(sys.argv[1])
released.syncscope_stack_read.restype = ctypes.c_uint
held.syncscope_stack_read.restype = ctypes.c_uint
released.syncscope_stack_init()
seen = {}


def sync_helper(label):
    seen[label] = released.syncscope_stack_read()


class Model:
    def forward(self, label):
        seen[label] = held.syncscope_stack_read()


def größe(label):
    seen[label] = released.syncscope_stack_read()


def deep(n, label):
    if n == 0:
        seen[label] = released.syncscope_stack_read()
        return
    deep(n - 1, label)


def in_thread():
    sync_helper("thread")


def values():
    return [released.syncscope_stack_read() for _ in range(2)]


seen["module"] = released.syncscope_stack_read()
sync_helper("first caller")
sync_helper("second caller")
Model().forward("method, GIL held")
größe("non-ASCII function")
deep(200, "deep")
t = threading.Thread(target=in_thread, name="loader")
t.start()
t.join()
seen["comprehension"] = values()[0]
released.syncscope_stack_switch(0)
seen["switched off"] = released.syncscope_stack_read()
released.syncscope_stack_switch(1)
for i in range(3):
    seen[f"loop {i}"] = released.syncscope_stack_read()

# Code made and freed in turn: a new code object often takes a freed one's address, and must
# not take its lines.
for n in range(3):
    scope = {"seen": seen, "released": released}
    source = "\n" * n + "def dynamic(label):\n    seen[label] = released.syncscope_stack_read()\n"
    exec(compile(source, "<dynamic>", "exec"), scope)
    scope["dynamic"](f"dynamic {n}")
    del scope
    gc.collect()  # the function and its globals hold each other

room = 1 << 20
buf = ctypes.create_string_buffer(room)
n = released.syncscope_stack_records(buf, room)
with open(sys.argv[2], "wb") as f:
    f.write(buf.raw[:n])
print(json.dumps(seen))
