% run_methods(DIR, METHOD, MAXN): the authors' MatchALS (mmatch_CVX_ALS.m) or
% MatchLift (MatchLift.m) as the CLEAR paper's harness calls them, on each
% DIR/pNN.txt of at most MAXN observations; writes the associated pairs
% (0-based, i<j) to pNN.matchals or pNN.matchlift.
function run_methods(dir, method, maxn)
  s = dir_list(dir);
  for f = 1:numel(s)
    [W, dims, m] = read_problem_local(s{f});
    if size(W,1) > maxn, continue; end
    rand('seed', 1); rand('state', 1);
    tic;
    switch method
      case 'matchals'
        X = mmatch_CVX_ALS(W, dims, 'univsize', 2*m, 'maxiter', 200, 'verbose', false);
      case 'matchlift'
        X = MatchLift(W, dims, m);
    end
    t = toc;
    [r, c] = find(triu(X, 1));
    out = [s{f}(1:end-4) '.' method];
    fid = fopen(out, 'w'); fprintf(fid, '%d %d\n', [r c]' - 1); fclose(fid);
    printf('%s: %d pairs, %.1f s\n', out, numel(r), t);
  end
end
function [W, dims, m] = read_problem_local(file)
  lines = strsplit(fileread(file), "\n");
  m = []; body = {};
  for i = 1:numel(lines)
    line = strtrim(lines{i});
    if isempty(line), continue; end
    if line(1) == '#'
      v = sscanf(line, '# universe %d');
      if ~isempty(v), m = v; end
      continue;
    end
    body{end+1} = line;
  end
  dims = sscanf(body{1}, '%f');
  n = sum(dims);
  a = zeros(numel(body) - 1, 3);
  for i = 2:numel(body)
    x = sscanf(body{i}, '%f')';
    if numel(x) == 2, x(3) = 1; end
    a(i - 1, :) = x;
  end
  W = sparse(a(:, 1) + 1, a(:, 2) + 1, a(:, 3), n, n);
  W = W + W' + speye(n);
end
function files = dir_list(d)
  s = dir(fullfile(d, 'p*.txt'));
  files = cellfun(@(x) fullfile(d, x), {s.name}, 'UniformOutput', false);
end
