// libtorch_python: the CPython bindings. torch/_C is a stub that calls
// initModule(), as in PyTorch. Plain C API, no pybind11.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string>
#include <vector>

#include <torch/torch.h>

namespace {

// Raised errors carry the C++ message; c10::Error maps to RuntimeError.
template <typename F>
PyObject* guarded(F&& f) {
  try {
    return f();
  } catch (const c10::Error& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

// A list of lists of numbers -> Matrix. Returns false with a Python error set.
bool to_matrix(PyObject* obj, const char* what, torch::Matrix& out) {
  PyObject* rows = PySequence_Fast(obj, "expected a list of lists of numbers");
  if (rows == nullptr) return false;
  const Py_ssize_t r = PySequence_Fast_GET_SIZE(rows);
  std::size_t cols = 0;
  std::vector<double> data;
  for (Py_ssize_t i = 0; i < r; ++i) {
    PyObject* row = PySequence_Fast(PySequence_Fast_GET_ITEM(rows, i),
                                    "expected a list of lists of numbers");
    if (row == nullptr) {
      Py_DECREF(rows);
      return false;
    }
    const Py_ssize_t c = PySequence_Fast_GET_SIZE(row);
    if (i == 0) cols = static_cast<std::size_t>(c);
    if (static_cast<std::size_t>(c) != cols) {
      PyErr_Format(PyExc_ValueError, "%s: row %zd has %zd elements, expected %zu", what, i, c,
                   cols);
      Py_DECREF(row);
      Py_DECREF(rows);
      return false;
    }
    for (Py_ssize_t j = 0; j < c; ++j) {
      const double v = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(row, j));
      if (v == -1.0 && PyErr_Occurred()) {
        Py_DECREF(row);
        Py_DECREF(rows);
        return false;
      }
      data.push_back(v);
    }
    Py_DECREF(row);
  }
  Py_DECREF(rows);
  out.rows = static_cast<std::size_t>(r);
  out.cols = cols;
  out.data = std::move(data);
  return true;
}

bool to_vector(PyObject* obj, std::vector<double>& out) {
  PyObject* seq = PySequence_Fast(obj, "expected a list of numbers");
  if (seq == nullptr) return false;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  for (Py_ssize_t i = 0; i < n; ++i) {
    const double v = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
    if (v == -1.0 && PyErr_Occurred()) {
      Py_DECREF(seq);
      return false;
    }
    out.push_back(v);
  }
  Py_DECREF(seq);
  return true;
}

PyObject* from_matrix(const torch::Matrix& m) {
  PyObject* rows = PyList_New(static_cast<Py_ssize_t>(m.rows));
  if (rows == nullptr) return nullptr;
  for (std::size_t i = 0; i < m.rows; ++i) {
    PyObject* row = PyList_New(static_cast<Py_ssize_t>(m.cols));
    if (row == nullptr) {
      Py_DECREF(rows);
      return nullptr;
    }
    for (std::size_t j = 0; j < m.cols; ++j)
      PyList_SET_ITEM(row, static_cast<Py_ssize_t>(j), PyFloat_FromDouble(m.at(i, j)));
    PyList_SET_ITEM(rows, static_cast<Py_ssize_t>(i), row);
  }
  return rows;
}

PyObject* from_vector(const std::vector<double>& v) {
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(v.size()));
  if (list == nullptr) return nullptr;
  for (std::size_t i = 0; i < v.size(); ++i)
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), PyFloat_FromDouble(v[i]));
  return list;
}

PyObject* py_matmul(PyObject*, PyObject* args) {
  PyObject *a_obj, *b_obj;
  if (!PyArg_ParseTuple(args, "OO", &a_obj, &b_obj)) return nullptr;
  torch::Matrix a, b;
  if (!to_matrix(a_obj, "matmul", a) || !to_matrix(b_obj, "matmul", b)) return nullptr;
  return guarded([&] { return from_matrix(torch::matmul(a, b)); });
}

PyObject* py_cuda_matmul(PyObject*, PyObject* args) {
  PyObject *a_obj, *b_obj;
  if (!PyArg_ParseTuple(args, "OO", &a_obj, &b_obj)) return nullptr;
  torch::Matrix a, b;
  if (!to_matrix(a_obj, "cuda.matmul", a) || !to_matrix(b_obj, "cuda.matmul", b)) return nullptr;
  return guarded([&] { return from_matrix(torch::cuda::matmul(a, b)); });
}

PyObject* py_solve(PyObject*, PyObject* args) {
  PyObject *a_obj, *b_obj;
  if (!PyArg_ParseTuple(args, "OO", &a_obj, &b_obj)) return nullptr;
  torch::Matrix a;
  std::vector<double> b;
  if (!to_matrix(a_obj, "linalg.solve", a) || !to_vector(b_obj, b)) return nullptr;
  return guarded([&] { return from_vector(torch::linalg::solve(a, b)); });
}

PyObject* py_cuda_is_available(PyObject*, PyObject*) {
  return PyBool_FromLong(torch::cuda::is_available() ? 1 : 0);
}

PyObject* py_cuda_device_count(PyObject*, PyObject*) {
  return PyLong_FromLong(torch::cuda::device_count());
}

PyObject* py_cuda_unavailable_reason(PyObject*, PyObject*) {
  return guarded([] { return PyUnicode_FromString(torch::cuda::unavailable_reason().c_str()); });
}

PyObject* py_show_config(PyObject*, PyObject*) {
  return guarded([] { return PyUnicode_FromString(torch::build_config().c_str()); });
}

PyMethodDef methods[] = {
    {"_matmul", py_matmul, METH_VARARGS, "matmul(a, b) on the CPU through CBLAS"},
    {"_cuda_matmul", py_cuda_matmul, METH_VARARGS, "matmul(a, b) with the CUDA kernel"},
    {"_linalg_solve", py_solve, METH_VARARGS, "solve(a, b) for a square a"},
    {"_cuda_is_available", py_cuda_is_available, METH_NOARGS, nullptr},
    {"_cuda_device_count", py_cuda_device_count, METH_NOARGS, nullptr},
    {"_cuda_unavailable_reason", py_cuda_unavailable_reason, METH_NOARGS, nullptr},
    {"_show_config", py_show_config, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "torch._C", "minitorch C bindings", -1,
                          methods, nullptr, nullptr, nullptr, nullptr};

}  // namespace

extern "C" C10_EXPORT PyObject* initModule(void) {
  PyObject* m = PyModule_Create(&module_def);
  if (m == nullptr) return nullptr;
  if (PyModule_AddStringConstant(m, "_version", torch::version()) != 0 ||
      PyModule_AddStringConstant(m, "_blas", torch::blas_name()) != 0 ||
      PyModule_AddObject(m, "_has_cuda", PyBool_FromLong(torch::cuda::is_built())) != 0 ||
      PyModule_AddObject(m, "_has_magma", PyBool_FromLong(torch::cuda::has_magma())) != 0 ||
      PyModule_AddStringConstant(m, "_linalg_backend",
                                 torch::linalg::backend().c_str()) != 0) {
    Py_DECREF(m);
    return nullptr;
  }
  return m;
}
