/* torch/_C: the extension module is only this stub; the bindings live in
 * libtorch_python (as in PyTorch). */
#include <Python.h>

extern PyObject* initModule(void);

PyMODINIT_FUNC PyInit__C(void) { return initModule(); }
