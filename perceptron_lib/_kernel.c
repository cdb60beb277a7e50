/* The perceptron's epoch loop in C: an optional speed-up of perceptron_lib._engine.
 *
 * scan() visits the examples from `start` on, in order, with the weights
 * v = (w, b) and, on each mistake, makes the update w += s x, b += s of the
 * plain loop.  Python's numpy path spends a few microseconds per mistake;
 * here a mistake costs one pass over d numbers.
 *
 * Exactness.  The plain loop decides a mistake by the sign of numpy's
 * y * (x @ w + b); numpy's dot product (BLAS) adds its terms in an order this
 * file cannot reproduce, so the two computed scores may differ in the last
 * bits.  The kernel therefore decides only where its own score provably has
 * the sign numpy's has, and hands every other example back to Python, which
 * decides it with numpy's own expression.
 *
 * The bound.  Write z = y (x, 1) and v = (w, b) (z = y x and v = w without an
 * offset), m their length, A = z . v the exact agreement, u = 2^-53 the unit
 * roundoff and eta = 2^-1074 the smallest subnormal.  Any evaluation that
 * forms the m products and adds them up in any order, with or without fused
 * multiply-adds, returns a value within
 *     gamma_m sum_j |z_j v_j| + m eta,     gamma_m = m u / (1 - m u),
 * of A (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
 * section 3.1; a product that underflows errs by at most eta / 2 more, and a
 * sum that lands among the subnormals is exact).  numpy's value is such an
 * evaluation: x @ w adds d products, "+ b" adds the m-th (b * 1 is exact),
 * and multiplying by y = -1 or +1 is exact, so its sign is the sign of its
 * value.  Ours, y * (dot(x, w) + b), is another.  By Cauchy-Schwarz,
 * sum_j |z_j v_j| <= ||z|| ||v||, so the two values differ by at most
 *     E = 2 (gamma_m ||z|| ||v|| + m eta).
 * The slack used is
 *     slack = 2 (m + 3) u Z V + 8 m eta,
 * with Z a bound on the largest ||z|| over the examples, computed by the
 * caller, and V one on ||v||, computed here.  Each is the square root of a
 * computed sum of m squares.  That sum errs by a relative gamma_m (its terms
 * are positive) plus at most m eta / 2 from squares that underflow; when it
 * is at least 2^-960 the latter is below a relative 2^-90 for m < 10^7, so
 * the root is at least the true norm times 1 - (m / 2 + 2) u.  A sum below
 * 2^-960 may have lost its accuracy to underflow, and its root is replaced
 * by 2^-470, which exceeds any norm whose computed sum of squares is that
 * small.  Forming the slack rounds four more times, so
 *     (m + 3) u Z V >= (m + 3)(1 - (m + 8) u) u ||z|| ||v||,
 * which is at least gamma_m ||z|| ||v|| whenever 2 m^2 u < 3, in particular
 * for every m < 10^7 (larger m is refused).  Where those four products
 * underflow, each errs by at most eta, which the 6 m eta beyond E's 2 m eta
 * absorbs.
 * So slack >= E, and
 *     our agreement > slack   =>  numpy's > 0: no mistake;
 *     our agreement < -slack  =>  numpy's < 0: a mistake;
 * and an agreement within [-slack, slack] is returned undecided.  With v = 0
 * every product is a signed zero in both evaluations, the agreement is
 * exactly 0 in both, and the example is a mistake.  When Z V exceeds 1e300
 * (where a sum could overflow) or is not a number, nothing is decided here.
 *
 * The update must equal numpy's `w += s * x; b += s` bit for bit: one
 * rounded product, then one rounded sum, per entry.  The build turns off
 * floating-point contraction (-ffp-contract=off) so that no compiler fuses
 * them into one multiply-add.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

#define UNIT 0x1p-53
#define TINY 0x1p-1074
#define MAX_TERMS 10000000

enum { SCAN_DONE = 0, SCAN_MISTAKE = 1, SCAN_UNDECIDED = 2 };

/* Eight running sums, which the compiler can pack into vector registers: any
 * order of summation is covered by the bound above. */
static double dot(const double *a, const double *b, Py_ssize_t n)
{
    double s[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    Py_ssize_t j = 0;
    for (; j + 8 <= n; j += 8)
        for (int k = 0; k < 8; k++)
            s[k] += a[j + k] * b[j + k];
    double tail = 0.0;
    for (; j < n; j++)
        tail += a[j] * b[j];
    return (((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]))) + tail;
}

/* The slack for weights v of length m (see the bound above): 0 when v is zero (decided
 * exactly), inf when nothing may be decided. */
static double slack_for(const double *v, Py_ssize_t m, double max_z_norm)
{
    double squares = dot(v, v, m);
    if (squares < 0x1p-960) {
        for (Py_ssize_t j = 0; j < m; j++)
            if (v[j] != 0.0)
                return 2.0 * (double)(m + 3) * UNIT * (max_z_norm * 0x1p-470) + 8.0 * (double)m * TINY;
        return 0.0;
    }
    double zv = max_z_norm * sqrt(squares);
    if (!(zv <= 1e300))
        return INFINITY;
    return 2.0 * (double)(m + 3) * UNIT * zv + 8.0 * (double)m * TINY;
}

static int need(const Py_buffer *buf, Py_ssize_t count, const char *name)
{
    if (buf->len != count * (Py_ssize_t)sizeof(double)) {
        PyErr_Format(PyExc_ValueError, "%s must hold %zd float64 values, got %zd bytes", name, count, buf->len);
        return 0;
    }
    return 1;
}

static PyObject *scan(PyObject *self, PyObject *args)
{
    Py_buffer X = {0}, y = {0}, step = {0}, v = {0};
    Py_ssize_t n, d, start;
    int fit_intercept, update;
    double max_z_norm;
    PyObject *result = NULL;

    if (!PyArg_ParseTuple(args, "y*y*y*w*nnpndp", &X, &y, &step, &v, &n, &d, &fit_intercept, &start,
                          &max_z_norm, &update))
        return NULL;
    Py_ssize_t m = d + (fit_intercept ? 1 : 0);
    if (!need(&X, n * d, "X") || !need(&y, n, "y") || !need(&step, n, "step") || !need(&v, m, "v"))
        goto done;
    if (m >= MAX_TERMS) {
        PyErr_Format(PyExc_ValueError, "the bound needs fewer than %d weights, got %zd", MAX_TERMS, m);
        goto done;
    }
    if (start < 0 || start > n) {
        PyErr_Format(PyExc_ValueError, "start must be in [0, %zd], got %zd", n, start);
        goto done;
    }

    const double *xs = X.buf, *ys = y.buf, *steps = step.buf;
    double *w = v.buf;
    Py_ssize_t i = start, made = 0;
    int status = SCAN_DONE;

    Py_BEGIN_ALLOW_THREADS
    double b = fit_intercept ? w[d] : 0.0;
    double slack = slack_for(w, m, max_z_norm);
    for (; i < n; i++) {
        const double *x = xs + i * d;
        double agreement = ys[i] * (dot(x, w, d) + b);
        if (agreement > slack)
            continue;
        if (!(slack == 0.0 || agreement < -slack)) {
            status = SCAN_UNDECIDED;
            break;
        }
        if (!update) {
            status = SCAN_MISTAKE;
            break;
        }
        double s = steps[i];
        for (Py_ssize_t j = 0; j < d; j++)
            w[j] = w[j] + s * x[j];
        if (fit_intercept) {
            w[d] = w[d] + s;
            b = w[d];
        }
        made++;
        slack = slack_for(w, m, max_z_norm);
    }
    Py_END_ALLOW_THREADS

    result = Py_BuildValue("nin", i, status, made);
done:
    PyBuffer_Release(&X);
    PyBuffer_Release(&y);
    PyBuffer_Release(&step);
    PyBuffer_Release(&v);
    return result;
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS,
     "scan(X, y, step, v, n, d, fit_intercept, start, max_z_norm, update)"
     " -> (index, status, mistakes made)\n\n"
     "Visit examples start, start+1, ... with the weights v = (w, b), updated in place.\n"
     "status 0: every example was visited (index = n); 1: the example at index is a proven\n"
     "mistake, not yet applied (only when update is false); 2: the example at index is too\n"
     "close to call and must be decided by the caller."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernel", "The perceptron's epoch loop in C (see _kernel.c for its exactness proof).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__kernel(void)
{
    return PyModule_Create(&module);
}
